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
// Same tells whether two paths name one file (so a command can refuse to
// write over its own input) and CheckName whether a name read from a file
// is safe to use as one path component.
package safefile
