package main

import (
	"context"
	"errors"
	"io"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

func runIngest(ctx context.Context, cfg config, bins testenv.Binaries, stdout, stderr io.Writer) error {
	return errors.New("-ingest-repo: not yet")
}
