//go:build !race

package mutate

const raceEnabled = false
