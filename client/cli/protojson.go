package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// marshalProto renders an API message as JSON with the proto field names —
// the shape grpcurl shows — but with every number a JSON number. protojson
// writes 64-bit integers as strings (JavaScript cannot hold them exactly),
// which makes `"memories": "126"`; every count and id here fits a double,
// and a script should not have to convert them.
func marshalProto(m proto.Message) ([]byte, error) {
	b, err := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("re-read the answer's JSON: %w", err)
	}
	return json.MarshalIndent(ordered(v, m.ProtoReflect().Descriptor()), "", "  ")
}

// ordered rebuilds a decoded message in its fields' declared order, with
// 64-bit integers as numbers.
func ordered(v any, md protoreflect.MessageDescriptor) any {
	obj, ok := v.(map[string]any)
	if !ok || isWellKnown(md) {
		return v
	}
	out := make(object, 0, len(obj))
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		name := string(fd.Name())
		fv, ok := obj[name]
		if !ok {
			continue
		}
		out = append(out, member{name, fieldValue(fv, fd)})
	}
	return out
}

// fieldValue converts one field's decoded value.
func fieldValue(v any, fd protoreflect.FieldDescriptor) any {
	switch {
	case fd.IsList():
		list, _ := v.([]any)
		for i := range list {
			list[i] = scalar(list[i], fd)
		}
		return v
	case fd.IsMap():
		m, _ := v.(map[string]any)
		for k := range m {
			m[k] = scalar(m[k], fd.MapValue())
		}
		return v
	}
	return scalar(v, fd)
}

func scalar(v any, fd protoreflect.FieldDescriptor) any {
	switch fd.Kind() {
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if s, ok := v.(string); ok {
			return json.Number(s)
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return ordered(v, fd.Message())
	case protoreflect.EnumKind:
		if s, ok := v.(string); ok {
			return enumWord(fd.Enum(), s)
		}
	}
	return v
}

// enumWord is an enum value as people and scripts read it — the word the
// wire's vocabulary uses ("project", "verified", "not_found"), never the
// generated name ("SCOPE_PROJECT"): the value's name without the prefix all
// of its enum's values share, in lower case, and a default value
// ("SEARCH_SCOPE_DEFAULT_UNSPECIFIED") without "_unspecified". The shim,
// `export` and the CLI's text all say the same words.
func enumWord(ed protoreflect.EnumDescriptor, name string) string {
	values := ed.Values()
	prefix := ""
	if values.Len() > 0 {
		prefix = string(values.Get(0).Name())
	}
	for i := 1; i < values.Len(); i++ {
		n := string(values.Get(i).Name())
		for !strings.HasPrefix(n, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	prefix = prefix[:strings.LastIndexByte(prefix, '_')+1] // whole words only
	word := strings.ToLower(strings.TrimPrefix(name, prefix))
	if w, ok := strings.CutSuffix(word, "_unspecified"); ok && w != "" {
		return w
	}
	return word
}

// isWellKnown: a Timestamp, Duration or wrapper has its own JSON form
// (a string such as "2026-11-30T10:00:00Z"), kept as protojson writes it.
func isWellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile().Package() == "google.protobuf"
}

// object is a JSON object that keeps its members' order.
type object []member

type member struct {
	name  string
	value any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.name)
		if err != nil {
			return nil, err
		}
		val, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
