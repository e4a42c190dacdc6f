// Package fuzz will hold the generators, mutators, oracles and campaign
// runner of "mcpcheck fuzz". It is not built yet; the native fuzz targets of
// the codec live beside it in spec/jsonrpc.
package fuzz
