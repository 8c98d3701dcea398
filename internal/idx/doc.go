// Package idx reads the IDX format of the MNIST family of data sets (plain
// or gzip-compressed), and loads the four files of an MNIST-format data set
// from a directory. Errors name the file and what was wrong with it.
//
// An IDX file is a big-endian header, two zero bytes, a type code (0x08 for
// unsigned bytes, the only type these data sets use) and the number of
// dimensions, then one uint32 size per dimension, then the data row-major.
package idx
