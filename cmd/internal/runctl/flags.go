package runctl

import (
	"bytes"
	"errors"
	"flag"
	"io"
)

// ParseFlags parses args with fs, a flag set whose output is the command's
// standard error. Asking for help (-h, -help) is not an error: the usage
// goes to stdout and ParseFlags returns flag.ErrHelp, which the command
// turns into exit status 0. Any other parse error prints its message and
// the usage to fs's output as usual.
func ParseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	stderr := fs.Output()
	var msg bytes.Buffer
	fs.SetOutput(&msg)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	if errors.Is(err, flag.ErrHelp) {
		stderr = stdout
	}
	stderr.Write(msg.Bytes())
	return err
}
