package main

// This file is compiled twice: into fuzzseeds, and, copied with its
// package clause changed, into the package of a fuzz target while its
// seeds are recorded (see recorder.go). It imports the standard library
// only and its names start with seedcorpus.

import (
	"encoding/binary"
	"fmt"
	"reflect"
)

// seedcorpusEncode turns the arguments of one call of a fuzz function
// (after its *testing.T) into the libFuzzer input that go-118-fuzz-build's
// testing.F.Fuzz decodes back into the same arguments. Its decoder (the
// ConsumeFuzzer of go-fuzz-headers) reads, per parameter: []byte and
// string as a 4-byte big-endian length and the bytes (a []byte length of
// 0 means 30, and a length is taken modulo the bytes left unless equal to
// them); int, int64, uint, uint64 as 8 bytes and a byte whose parity picks
// the byte order (odd: big-endian); int16, uint16 as 2 bytes and that
// byte; int32, uint32 as 4 big-endian bytes; int8, uint8 as one byte; bool
// as one byte, even meaning true. A trailing byte keeps an empty last
// []byte or string from running out of input.
func seedcorpusEncode(args []reflect.Value) ([]byte, error) {
	var out []byte
	type lengthAt struct {
		at, n int
		bytes bool
	}
	var lengths []lengthAt
	for _, a := range args {
		switch a.Kind() {
		case reflect.Slice:
			if a.Type().Elem().Kind() != reflect.Uint8 {
				return nil, fmt.Errorf("seedcorpus: cannot encode a %s", a.Type())
			}
			lengths = append(lengths, lengthAt{at: len(out), n: a.Len(), bytes: true})
			out = append(out, 0, 0, 0, 0)
			out = append(out, a.Bytes()...)
		case reflect.String:
			lengths = append(lengths, lengthAt{at: len(out), n: a.Len()})
			out = append(out, 0, 0, 0, 0)
			out = append(out, a.String()...)
		case reflect.Int, reflect.Int64:
			out = binary.BigEndian.AppendUint64(out, uint64(a.Int()))
			out = append(out, 1)
		case reflect.Uint, reflect.Uint64:
			out = binary.BigEndian.AppendUint64(out, a.Uint())
			out = append(out, 1)
		case reflect.Int16:
			out = binary.BigEndian.AppendUint16(out, uint16(a.Int()))
			out = append(out, 1)
		case reflect.Uint16:
			out = binary.BigEndian.AppendUint16(out, uint16(a.Uint()))
			out = append(out, 1)
		case reflect.Int32:
			out = binary.BigEndian.AppendUint32(out, uint32(a.Int()))
		case reflect.Uint32:
			out = binary.BigEndian.AppendUint32(out, uint32(a.Uint()))
		case reflect.Int8:
			out = append(out, byte(a.Int()))
		case reflect.Uint8:
			out = append(out, byte(a.Uint()))
		case reflect.Bool:
			if a.Bool() {
				out = append(out, 0)
			} else {
				out = append(out, 1)
			}
		default:
			return nil, fmt.Errorf("seedcorpus: cannot encode a %s", a.Type())
		}
	}
	if len(lengths) > 0 && lengths[len(lengths)-1].n == 0 && lengths[len(lengths)-1].at+4 == len(out) {
		out = append(out, 0) // an empty last []byte or string needs a byte left
	}
	for _, l := range lengths {
		n := uint32(l.n)
		if left := uint32(len(out) - l.at - 4); l.bytes && n == 0 {
			n = 2 * left // 0 would mean 30; 2*left modulo left is 0
		}
		binary.BigEndian.PutUint32(out[l.at:], n)
	}
	return out, nil
}
