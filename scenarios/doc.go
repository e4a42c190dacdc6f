// Package scenarios will hold the Ginkgo conformance suites, one file per
// protocol area, each check citing requirement IDs of spec/catalog. It is not
// built yet.
package scenarios
