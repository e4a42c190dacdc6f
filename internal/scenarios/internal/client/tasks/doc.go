// Package tasks holds the client suite's checks of tasks (2025-11-25):
// the client as requestor (tasks.go: which tools it calls as tasks, how it
// polls, asks for results, lists and cancels them, with the stage playing
// the receiver on a task engine of its own) and as receiver of the stage's
// task-augmented sampling and elicitation requests (receiver.go). It
// registers its scenarios and checks into the suite's registry
// (internal/scenarios/internal/client), which lists them where tasks.go and
// tasks_receiver.go stood.
package tasks
