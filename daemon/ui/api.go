package ui

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The page's API: POST /api/{method} with the request message as JSON (the
// API's field names, as grpcurl and `--json` show them), answered with the
// reply message as JSON. Each method is one call of the daemon's gRPC
// service as the person: whatever caller the body names is replaced by
// theirs. Only the calls a person makes from the page are listed; saving,
// ingesting, moving and rebuilding stay with the command line and agents.

// maxBody bounds one API request: a search query or a review note.
const maxBody = 1 << 20

// callTimeout bounds one call the page makes.
const callTimeout = 30 * time.Second

// method is one call the page may make.
type method struct {
	name        string // the gRPC method's full name
	req, answer func() proto.Message
}

func rpc[Req, Resp any, PReq interface {
	*Req
	proto.Message
}, PResp interface {
	*Resp
	proto.Message
}](name string) method {
	return method{name: name, req: func() proto.Message { return PReq(new(Req)) }, answer: func() proto.Message { return PResp(new(Resp)) }}
}

// methods are the calls the page may make, by the name in its path.
var methods = map[string]method{
	"Search":       rpc[ihmtv1.SearchRequest, ihmtv1.SearchResponse](ihmtv1.MemoryService_Search_FullMethodName),
	"Get":          rpc[ihmtv1.GetRequest, ihmtv1.GetResponse](ihmtv1.MemoryService_Get_FullMethodName),
	"Stats":        rpc[ihmtv1.StatsRequest, ihmtv1.StatsResponse](ihmtv1.MemoryService_Stats_FullMethodName),
	"Tree":         rpc[ihmtv1.TreeRequest, ihmtv1.TreeResponse](ihmtv1.MemoryService_Tree_FullMethodName),
	"Facts":        rpc[ihmtv1.FactsRequest, ihmtv1.FactsResponse](ihmtv1.MemoryService_Facts_FullMethodName),
	"Timeline":     rpc[ihmtv1.TimelineRequest, ihmtv1.TimelineResponse](ihmtv1.MemoryService_Timeline_FullMethodName),
	"Conflicts":    rpc[ihmtv1.ConflictsRequest, ihmtv1.ConflictsResponse](ihmtv1.MemoryService_Conflicts_FullMethodName),
	"Log":          rpc[ihmtv1.LogRequest, ihmtv1.LogResponse](ihmtv1.MemoryService_Log_FullMethodName),
	"VerifyAudit":  rpc[ihmtv1.VerifyAuditRequest, ihmtv1.VerifyAuditResponse](ihmtv1.MemoryService_VerifyAudit_FullMethodName),
	"ListReview":   rpc[ihmtv1.ListReviewRequest, ihmtv1.ListReviewResponse](ihmtv1.MemoryService_ListReview_FullMethodName),
	"Review":       rpc[ihmtv1.ReviewRequest, ihmtv1.ReviewResponse](ihmtv1.MemoryService_Review_FullMethodName),
	"MarkOutdated": rpc[ihmtv1.MarkOutdatedRequest, ihmtv1.MarkOutdatedResponse](ihmtv1.MemoryService_MarkOutdated_FullMethodName),
	"Unlink":       rpc[ihmtv1.UnlinkRequest, ihmtv1.UnlinkResponse](ihmtv1.MemoryService_Unlink_FullMethodName),
	"Forget":       rpc[ihmtv1.ForgetRequest, ihmtv1.ForgetResponse](ihmtv1.MemoryService_Forget_FullMethodName),
	"Restore":      rpc[ihmtv1.RestoreRequest, ihmtv1.RestoreResponse](ihmtv1.MemoryService_Restore_FullMethodName),
	"Purge":        rpc[ihmtv1.PurgeRequest, ihmtv1.PurgeResponse](ihmtv1.MemoryService_Purge_FullMethodName),
	"Status":       rpc[ihmtv1.UIServiceStatusRequest, ihmtv1.UIServiceStatusResponse](ihmtv1.UIService_Status_FullMethodName),
}

// Methods lists the API's method names, for tests and documentation.
func Methods() []string {
	names := []string{memoryLog}
	for n := range methods {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// memoryLog is the one call the page makes that is not one RPC: one
// memory's entries of the log, which LogRequest cannot filter by.
const memoryLog = "MemoryLog"

// api answers POST /api/{method}.
func (p *Page) api(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("method")
	m, ok := methods[name]
	if !ok && name != memoryLog {
		apiError(w, http.StatusNotFound, "no such call on the page: "+name)
		return
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		// A cross-site form cannot send this type without a preflight,
		// which the page never answers.
		apiError(w, http.StatusUnsupportedMediaType, "send the request as application/json")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
		apiError(w, http.StatusRequestEntityTooLarge, "the request is too large (at most 1 MiB)")
		return
	}
	if err != nil {
		apiError(w, http.StatusBadRequest, "read the request: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), callTimeout)
	defer cancel()
	var answer proto.Message
	if name == memoryLog {
		answer, err = p.memoryLog(ctx, body)
	} else {
		answer, err = p.call(ctx, m, body)
	}
	if err != nil {
		apiFailure(w, err)
		return
	}
	out, err := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}.Marshal(answer)
	if err != nil {
		apiError(w, http.StatusInternalServerError, "encode the answer: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

// call makes one RPC of the page as the person.
func (p *Page) call(ctx context.Context, m method, body []byte) (proto.Message, error) {
	req := m.req()
	if err := protojson.Unmarshal(body, req); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "read the request: %v", err)
	}
	p.actAsPerson(req)
	answer := m.answer()
	if err := p.cfg.Conn.Invoke(ctx, m.name, req, answer); err != nil {
		return nil, err
	}
	return answer, nil
}

// actAsPerson sets the request's caller to the person's, whatever it said.
func (p *Page) actAsPerson(req proto.Message) {
	msg := req.ProtoReflect()
	if fd := msg.Descriptor().Fields().ByName("caller"); fd != nil {
		msg.Set(fd, protoreflect.ValueOfMessage(proto.Clone(p.caller.Load()).ProtoReflect()))
	}
}

// memoryLog lists one memory's log entries: the newest entries of its scope
// (as many as one listing holds), those that name it.
func (p *Page) memoryLog(ctx context.Context, body []byte) (proto.Message, error) {
	var in struct {
		ID    string `json:"id"`
		Scope string `json:"scope"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.ID == "" {
		return nil, status.Error(codes.InvalidArgument, `read the request: send {"id": "...", "scope": "default|project|global|all"}`)
	}
	scope, err := ihmtv1.ParseSearchScope(in.Scope)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	req := &ihmtv1.LogRequest{Limit: 10000, Scope: scope}
	p.actAsPerson(req)
	all := &ihmtv1.LogResponse{}
	if err := p.cfg.Conn.Invoke(ctx, ihmtv1.MemoryService_Log_FullMethodName, req, all); err != nil {
		return nil, err
	}
	out := &ihmtv1.LogResponse{}
	for _, e := range all.GetEntries() {
		if slices.Contains(e.GetIds(), in.ID) {
			out.Entries = append(out.Entries, e)
		}
	}
	out.Matched = int64(len(out.Entries))
	return out, nil
}

// apiFailure answers a failed call with the HTTP status that says the same
// as its gRPC code, and the daemon's message — the one translation of the
// daemon's errors on the page's side.
func apiFailure(w http.ResponseWriter, err error) {
	st, _ := status.FromError(err)
	code := http.StatusInternalServerError
	switch st.Code() {
	case codes.InvalidArgument:
		code = http.StatusBadRequest
	case codes.NotFound:
		code = http.StatusNotFound
	case codes.FailedPrecondition:
		code = http.StatusConflict
	case codes.PermissionDenied:
		code = http.StatusForbidden
	case codes.Unavailable:
		code = http.StatusServiceUnavailable
	case codes.DeadlineExceeded, codes.Canceled:
		code = http.StatusGatewayTimeout
	}
	apiError(w, code, st.Message())
}

// apiError answers {"error": msg}.
func apiError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
