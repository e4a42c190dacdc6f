// Package reports will hold the neutral result model and the pure writers
// (text, JSON, JUnit XML, Markdown, HTML, baseline diff). It is not built yet.
package reports
