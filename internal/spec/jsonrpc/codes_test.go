package jsonrpc

import "testing"

func TestCodes(t *testing.T) {
	tests := []struct {
		code     int64
		name     string
		standard bool
		server   bool
	}{
		{ParseError, "ParseError", true, false},
		{InvalidRequest, "InvalidRequest", true, false},
		{MethodNotFound, "MethodNotFound", true, false},
		{InvalidParams, "InvalidParams", true, false},
		{InternalError, "InternalError", true, false},
		{ResourceNotFound, "ResourceNotFound", false, true},
		{URLElicitationRequired, "URLElicitationRequired", false, true},
		{HeaderMismatch, "HeaderMismatch", false, true},
		{MissingRequiredClientCapability, "MissingRequiredClientCapability", false, true},
		{UnsupportedProtocolVersion, "UnsupportedProtocolVersion", false, true},
		{-32000, "", false, true},
		{-32099, "", false, true},
		{-32100, "", false, false},
		{-31999, "", false, false},
		{-1, "", false, false},
		{0, "", false, false},
	}
	for _, tc := range tests {
		if got := CodeName(tc.code); got != tc.name {
			t.Errorf("CodeName(%d) = %q, want %q", tc.code, got, tc.name)
		}
		if got := IsStandard(tc.code); got != tc.standard {
			t.Errorf("IsStandard(%d) = %v", tc.code, got)
		}
		if got := InServerErrorRange(tc.code); got != tc.server {
			t.Errorf("InServerErrorRange(%d) = %v", tc.code, got)
		}
	}
	wantValues := map[int64]int64{ParseError: -32700, InvalidRequest: -32600, MethodNotFound: -32601, InvalidParams: -32602,
		InternalError: -32603, ResourceNotFound: -32002, URLElicitationRequired: -32042, HeaderMismatch: -32020,
		MissingRequiredClientCapability: -32021, UnsupportedProtocolVersion: -32022}
	for c, v := range wantValues {
		if c != v {
			t.Errorf("%s = %d, want %d", CodeName(c), c, v)
		}
	}
	if !IsReserved(-32768) || !IsReserved(-32000) || IsReserved(-32769) || IsReserved(-31999) {
		t.Error("IsReserved bounds")
	}
}
