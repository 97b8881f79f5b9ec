package timeline

// slots holds values by index, in blocks of slotBlock, and reuses the
// slots of removed values. Unlike a slice it grows without copying what
// it holds (copying a large slice of pointers is slow while the GC runs,
// and needs the old and new arrays at once) and keeps at most one block
// in reserve where append keeps up to a quarter more.
type slots[T any] struct {
	blocks []*[slotBlock]T
	n      uint32 // slots handed out, removed ones included
	free   []int32
}

const slotBlock = 256

func (s *slots[T]) at(i int32) *T {
	u := uint32(i)
	return &s.blocks[u/slotBlock][u%slotBlock]
}

// add returns the index of a zero slot.
func (s *slots[T]) add() int32 {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		return i
	}
	if s.n%slotBlock == 0 {
		s.blocks = append(s.blocks, new([slotBlock]T))
	}
	s.n++
	return int32(s.n - 1)
}

// remove zeroes slot i, so that it holds on to nothing, and keeps it for
// reuse.
func (s *slots[T]) remove(i int32) {
	var zero T
	*s.at(i) = zero
	s.free = append(s.free, i)
}
