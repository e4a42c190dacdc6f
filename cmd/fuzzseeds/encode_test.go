package main

import (
	"encoding/binary"
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// consume decodes data into values of types the way go-118-fuzz-build's
// testing.F.Fuzz does with go-fuzz-headers' ConsumeFuzzer (a transcription
// of their decoding rules, pinned with the tool's version in
// .clusterfuzzlite/build.sh). An error means F.Fuzz would not call the
// function at all.
func consume(data []byte, types []reflect.Type) ([]any, error) {
	pos := 0
	left := func() int { return len(data) - pos }
	next := func(n int) ([]byte, error) {
		if left() <= 0 || left() < n {
			return nil, errors.New("out of bytes")
		}
		b := data[pos : pos+n]
		pos += n
		return b, nil
	}
	boolean := func() (bool, error) {
		b, err := next(1)
		if err != nil {
			return false, err
		}
		return b[0]%2 == 0, nil
	}
	ordered := func(n int) (uint64, error) {
		b, err := next(n)
		if err != nil {
			return 0, err
		}
		little, err := boolean()
		if err != nil {
			return 0, err
		}
		var x uint64
		for i := 0; i < n; i++ {
			if little {
				x |= uint64(b[i]) << (8 * i)
			} else {
				x = x<<8 | uint64(b[i])
			}
		}
		return x, nil
	}
	var out []any
	for _, t := range types {
		switch t.Kind() {
		case reflect.Slice:
			lb, err := next(4)
			if err != nil {
				return nil, err
			}
			n := int(binary.BigEndian.Uint32(lb))
			if n == 0 {
				n = 30
			}
			if left() <= 0 {
				return nil, errors.New("out of bytes")
			}
			if n != left() {
				n %= left()
			}
			out = append(out, append([]byte{}, data[pos:pos+n]...))
			pos += n
		case reflect.String:
			if left() <= 0 {
				return nil, errors.New("out of bytes")
			}
			lb, err := next(4)
			if err != nil {
				return nil, err
			}
			n := int(binary.BigEndian.Uint32(lb))
			if left() <= 0 || n > left() {
				return nil, errors.New("out of bytes")
			}
			out = append(out, string(data[pos:pos+n]))
			pos += n
		case reflect.Int, reflect.Int64:
			x, err := ordered(8)
			if err != nil {
				return nil, err
			}
			out = append(out, reflect.ValueOf(int64(x)).Convert(t).Interface())
		case reflect.Uint, reflect.Uint64:
			x, err := ordered(8)
			if err != nil {
				return nil, err
			}
			out = append(out, reflect.ValueOf(x).Convert(t).Interface())
		case reflect.Int16, reflect.Uint16:
			x, err := ordered(2)
			if err != nil {
				return nil, err
			}
			out = append(out, reflect.ValueOf(x).Convert(t).Interface())
		case reflect.Int32, reflect.Uint32:
			b, err := next(4)
			if err != nil {
				return nil, err
			}
			out = append(out, reflect.ValueOf(binary.BigEndian.Uint32(b)).Convert(t).Interface())
		case reflect.Int8, reflect.Uint8:
			b, err := next(1)
			if err != nil {
				return nil, err
			}
			out = append(out, reflect.ValueOf(b[0]).Convert(t).Interface())
		case reflect.Bool:
			x, err := boolean()
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
	}
	return out, nil
}

// TestEncodeRoundTrips: for the parameter lists of the project's fuzz
// targets and random values (empty ones included, last or not), the
// decoder gets back exactly the values encoded.
func TestEncodeRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	randBytes := func() []byte {
		if rng.Intn(4) == 0 {
			return []byte{}
		}
		b := make([]byte, rng.Intn(70))
		rng.Read(b)
		return b
	}
	gen := map[reflect.Kind]func() any{
		reflect.Slice:  func() any { return randBytes() },
		reflect.String: func() any { return string(randBytes()) },
		reflect.Int:    func() any { return int(rng.Int63() - rng.Int63()) },
		reflect.Uint8:  func() any { return uint8(rng.Intn(256)) },
		reflect.Uint16: func() any { return uint16(rng.Intn(65536)) },
		reflect.Uint32: func() any { return rng.Uint32() },
		reflect.Uint64: func() any { return rng.Uint64() },
		reflect.Int32:  func() any { return int32(rng.Uint32()) },
		reflect.Bool:   func() any { return rng.Intn(2) == 0 },
	}
	signatures := [][]any{
		{[]byte{}},
		{[]byte{}, uint16(0), uint8(0)},
		{0, false, []byte{}},
		{uint8(0), uint8(0), "", []byte{}},
		{"", false, []byte{}},
		{[]byte{}, "", "", ""},
		{uint8(0), uint8(0), uint8(0), []byte{}},
		{"", "", []byte{}},
		{""},
		{uint64(0), int32(0), uint32(0), []byte{}, "", true},
	}
	for _, sig := range signatures {
		var types []reflect.Type
		for _, v := range sig {
			types = append(types, reflect.TypeOf(v))
		}
		for i := 0; i < 300; i++ {
			var vals []reflect.Value
			var want []any
			for _, ty := range types {
				v := reflect.ValueOf(gen[ty.Kind()]()).Convert(ty)
				vals = append(vals, v)
				want = append(want, v.Interface())
			}
			b, err := seedcorpusEncode(vals)
			if err != nil {
				t.Fatal(err)
			}
			got, err := consume(b, types)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%v: encoded %q, decoded %#v (%v), want %#v", types, b, got, err, want)
			}
		}
	}
	if _, err := seedcorpusEncode([]reflect.Value{reflect.ValueOf(1.5)}); err == nil || !strings.Contains(err.Error(), "float64") {
		t.Errorf("a float64 encoded (%v); want an error naming the type", err)
	}
}
