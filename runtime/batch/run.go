package batch

import (
	"encoding/json"
	"strconv"
)

// What running a batch needs besides its HTTP requests: the shape of its
// answer, the keys and ids of its operations, and the engine's hint.

// Response is the answer of a batch that ran: one result per
// operation, in order.
type Response struct {
	Results []Result `json:"results"`
}

// Result is what one operation answered: its status and its body on
// success, its problem on failure, and the ETag of the record it wrote.
type Result struct {
	ID      string          `json:"id"`
	Status  int             `json:"status"`
	Body    json.RawMessage `json:"body,omitempty"`
	Problem json.RawMessage `json:"problem,omitempty"`
	ETag    string          `json:"etag,omitempty"`
}

// OperationKey is the Idempotency-Key of an independent batch's
// operation: the batch's key and the operation's index, apart from
// every key a client can send (which holds no NUL).
func OperationKey(batchKey string, index int) string {
	return "batch\x00" + batchKey + "\x00" + strconv.Itoa(index)
}

// LikeOperations counts, for each operation, the operations from it on
// with its method and path: the engine's hint (engine.WithLikeWrites) by
// which the creates of one register take their numbers at once.
func LikeOperations(ops []Operation) []int {
	like := make([]int, len(ops))
	seen := map[[2]string]int{}
	for i := len(ops) - 1; i >= 0; i-- {
		k := [2]string{ops[i].Method, ops[i].Path}
		seen[k]++
		like[i] = seen[k]
	}
	return like
}

// IDs are the ids of the batch's operations, in order.
func (req Request) IDs() []string {
	ids := make([]string, len(req.Operations))
	for i, op := range req.Operations {
		ids[i] = op.ID
	}
	return ids
}
