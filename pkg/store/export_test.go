package store

// SurfacesReadTimelineOnly switches the surfaces other than search back to
// the timeline alone (see timelineOnly), for a positive control.
func SurfacesReadTimelineOnly(on bool) { timelineOnly.Store(on) }
