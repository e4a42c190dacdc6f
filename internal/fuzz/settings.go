package fuzz

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/spec"
)

// settings points at the fields Config and ClientConfig share, so that
// they are checked, given their defaults and read by the engine in one
// place whichever role the campaign plays. It points into a campaign's
// own copy of its configuration: what the campaign changes there (the
// version a target falls back to) the engine sees.
type settings struct {
	version        *spec.Version
	duration       *time.Duration
	maxExecs       *int64
	seed           *uint64
	workers        *int
	shard          *Shard
	findingsDir    *string
	wait           *time.Duration
	minimizeBudget *int
	minimizeTime   *time.Duration
	progress       *func(Progress)
	progressEvery  *time.Duration
	onFinding      *func(*Finding)
	reproducer     *func(*Finding) string
}

// settings points at cfg's fields that a client campaign has too.
func (cfg *Config) settings() settings {
	return settings{version: &cfg.Version, duration: &cfg.Duration, maxExecs: &cfg.MaxExecs, seed: &cfg.Seed, workers: &cfg.Workers, shard: &cfg.Shard,
		findingsDir: &cfg.FindingsDir, wait: &cfg.Wait, minimizeBudget: &cfg.MinimizeBudget, minimizeTime: &cfg.MinimizeTime,
		progress: &cfg.Progress, progressEvery: &cfg.ProgressEvery, onFinding: &cfg.OnFinding, reproducer: &cfg.Reproducer}
}

// settings points at cfg's fields that a server campaign has too.
func (cfg *ClientConfig) settings() settings {
	return settings{version: &cfg.Version, duration: &cfg.Duration, maxExecs: &cfg.MaxExecs, seed: &cfg.Seed, workers: &cfg.Workers, shard: &cfg.Shard,
		findingsDir: &cfg.FindingsDir, wait: &cfg.Wait, minimizeBudget: &cfg.MinimizeBudget, minimizeTime: &cfg.MinimizeTime,
		progress: &cfg.Progress, progressEvery: &cfg.ProgressEvery, onFinding: &cfg.OnFinding, reproducer: &cfg.Reproducer}
}

// check refuses an unbounded campaign, an unknown version and an invalid
// shard, makes MaxExecs the shard's share of the bound, and fills in the
// defaults: the latest version, one worker, DefaultWait,
// DefaultMinimizeBudget, DefaultMinimizeTime, a progress view every
// second, and reproducer as the replay command.
func (s settings) check(reproducer func(*Finding) string) error {
	if *s.duration <= 0 && *s.maxExecs <= 0 {
		return errors.New("fuzz: the campaign is unbounded; set a duration or a maximum number of executions")
	}
	if *s.version == "" {
		*s.version = spec.Latest
	}
	if !s.version.Known() {
		return fmt.Errorf("fuzz: unknown protocol version %q; use one of %s", *s.version, strings.Join(spec.VersionStrings(), ", "))
	}
	if *s.workers <= 0 {
		*s.workers = 1
	}
	if !s.shard.Valid() {
		return fmt.Errorf("fuzz: shard %d/%d: want K/N with 1 <= K <= N", s.shard.K, s.shard.N)
	}
	if *s.maxExecs > 0 {
		if *s.maxExecs = s.shard.Share(*s.maxExecs); *s.maxExecs == 0 {
			return fmt.Errorf("fuzz: shard %s of a campaign bounded to fewer executions than shards runs nothing; raise the bound or use fewer shards", *s.shard)
		}
	}
	if *s.wait <= 0 {
		*s.wait = DefaultWait
	}
	if *s.minimizeBudget == 0 {
		*s.minimizeBudget = DefaultMinimizeBudget
	}
	if *s.minimizeTime <= 0 {
		*s.minimizeTime = DefaultMinimizeTime
	}
	if *s.progressEvery <= 0 {
		*s.progressEvery = time.Second
	}
	if *s.reproducer == nil {
		*s.reproducer = reproducer
	}
	return nil
}
