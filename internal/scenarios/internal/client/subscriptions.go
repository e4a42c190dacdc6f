package client

// Subscriptions (2026-07-28): what the client does with the acknowledged
// filter of subscriptions/listen.

func init() {
	Exclude(map[string]string{
		"subscriptions.ack.client-checks-filter": "comparing the acknowledged filter with the requested one happens inside the client, and the specification leaves open what it does about a narrower filter (poll instead, tell the user, or nothing): a client that compared and one that did not send the same messages, so no bounded run can tell them apart",
	})
}
