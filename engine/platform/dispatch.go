package platform

import (
	"context"
	"slices"

	"fieldapi/engine"
)

// DispatchBatch is how many subscriptions one Dispatch serves.
const DispatchBatch = 20

// Signature is whose reading rights filter a subscription's deliveries:
// the signature that subscribed, in its company.
type Signature struct{ Company, Sign string }

// AskReadable asks readable once per signature what it may read. A
// dispatcher asks before it takes its lock or opens its transaction:
// readable reads the records, through the storage's other connections.
func AskReadable(ctx context.Context, readable Readable, who []Signature) (map[Signature][]string, error) {
	registers := make(map[Signature][]string, len(who))
	for _, s := range who {
		if _, asked := registers[s]; asked {
			continue
		}
		list, err := readable(ctx, s.Company, s.Sign)
		if err != nil {
			return nil, err
		}
		registers[s] = list
	}
	return registers, nil
}

// Delivers reports whether a subscription to patterns, made by a
// signature that may read the registers readable (nil: every one), gets
// an event of eventType in register.
func Delivers(patterns, readable []string, eventType, register string) bool {
	return engine.MatchAny(patterns, eventType) && (readable == nil || slices.Contains(readable, register))
}
