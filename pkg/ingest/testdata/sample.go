// Copyright 2024 The Example Authors.
// Licensed under the Apache License.

//go:build linux

// Package sample is a test file with nasty literals.
package sample

import (
	"fmt"
	"strings"
)

import "os"

// Greeting has braces in a raw string: `}}}` and a rune '}'.
const Greeting = `hello {
	world }}}
`

var r = '}'

/* A block comment with a brace {
   spanning lines } } */

// Server serves.
type Server struct {
	Name string // the name {
	Port int
}

// Run runs the server.
func (s *Server) Run() error {
	if s.Port == 0 {
		return fmt.Errorf("bad port: %q", "}")
	}
	x := map[string]int{"a": 1}
	_ = x
	return nil
}

func (s *Set[T]) Add(v T) { s.m[v] = struct{}{} }

func helper() { fmt.Println(strings.ToUpper("{")); os.Exit(0) }

var (
	a = 1
	b = 2
)

type (
	A int
	B string
)

// trailing comment
