// Package safefile writes a program's output files without ever destroying
// what was there: every writer in this project goes through Write.
//
// Write picks how to write by what the path names:
//
//   - a regular file, or nothing yet: atomically, into a temporary file
//     beside it (named .NAME.dlca-tmp-DIGITS), synced, then renamed over
//     it, so a reader sees the old file or the new one and a crash leaves
//     the old one whole;
//   - "-" or /dev/stdout: standard output;
//   - a character device (/dev/null, a terminal) or a named pipe: straight
//     through, since renaming over it would replace the device;
//   - a symbolic link: whatever it points to, by the rules above, so the
//     link stays a link;
//   - a directory, socket or anything else: refused with an error.
//
// # Why not github.com/google/renameio/v2
//
// renameio (v2.0.2) does the atomic part alone: temporary file, fsync,
// rename. This package is kept because it also
//
//   - builds on every platform: renameio's files are all //go:build
//     !windows, and dlca is cross-compiled for Windows (scripts/test);
//   - syncs the directory after the rename, so the rename itself survives
//     a power cut (renameio leaves that to the caller);
//   - writes through a symbolic link to its target (renameio replaces the
//     link by a regular file), and straight through to a device or a pipe
//     ("-", /dev/stdout, /dev/null), which renaming would replace;
//   - refuses a directory, a socket or a path in /proc with a message that
//     says what the path is, before anything is written (Check);
//   - names its temporary files .NAME.dlca-tmp-DIGITS and removes those a
//     killed write left behind, never a user's file that merely looks
//     temporary (IsTemp);
//   - keeps the replaced file's permissions, and makes new files 0644
//     rather than CreateTemp's 0600.
//
// docs/RELIABILITY.md lists each promise with its test.
//
// Same tells whether two paths name one file (so a command can refuse to
// write over its own input) and CheckName whether a name read from a file
// is safe to use as one path component.
package safefile
