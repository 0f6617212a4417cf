package codegen

// ProblemCode is one failure kind the service answers with an RFC 9457
// problem: its HTTP status, its code (the problem's title and the last
// segment of its type URL) and what it means. runtime/problem.go builds
// every one of them; TestProblemCodesMatchRuntime keeps the two in step.
type ProblemCode struct {
	Status     int
	Code       string
	Meaning    string
	RetryAfter bool // the response carries Retry-After
}

// ProblemCodes is every problem code, by status.
var ProblemCodes = []ProblemCode{
	{400, "malformed_body", "The body is not a JSON object of the expected shape.", false},
	{400, "unknown_field", "The body names a field that cannot be sent here; validValues lists those that can.", false},
	{400, "read_only_field", "The body sends a read-only or create-only field; validValues lists the writable ones.", false},
	{400, "invalid_field", "A field has the wrong JSON type or format.", false},
	{400, "missing_field", "A field the operation requires was not sent.", false},
	{400, "invalid_parameter", "A query, path or header parameter cannot be parsed.", false},
	{400, "idempotency_key_required", "A write came without an Idempotency-Key header.", false},
	{401, "unauthorized", "The key or token is missing, wrong, revoked or expired.", false},
	{401, "token_required", "The installation requires tokens and a key was sent as Bearer.", false},
	{403, "insufficient_scope", "The key lacks the scope the route needs.", false},
	{403, "ip_not_allowed", "The key may not be used from the caller's address.", false},
	{403, "permission_denied", "The engine's permissions for the key's signature refuse the call.", false},
	{404, "not_found", "The record or path does not exist in the key's company.", false},
	{405, "method_not_allowed", "The path exists, but not with this method; Allow lists the methods.", false},
	{409, "idempotency_mismatch", "The Idempotency-Key was used before with other content.", false},
	{409, "idempotency_in_flight", "A call with the same Idempotency-Key is still running.", true},
	{413, "payload_too_large", "The request body is over the limit (32 MB by default).", false},
	{415, "unsupported_media_type", "The body is not application/json.", false},
	{422, "command_failed", "The engine refused a well-formed call; detail gives its reason, validValues what it accepts.", false},
	{429, "rate_limited", "Too many calls for this key (or, on /v1/token, this address).", true},
	{500, "internal_error", "A fault in the service; the request id identifies it in the log.", false},
	{501, "not_implemented", "The engine attached does not offer this capability.", false},
	{503, "engine_unreachable", "The engine cannot be reached; it never received the call, retrying is safe.", true},
	{503, "engine_busy", "The engine is full; it never received the call, retrying is safe.", true},
	{504, "engine_timeout", "The engine did not answer in time; it may have written: retry with the same Idempotency-Key.", false},
}

// ProblemCodesOf are the codes answered with one status.
func ProblemCodesOf(status int) []ProblemCode {
	var out []ProblemCode
	for _, p := range ProblemCodes {
		if p.Status == status {
			out = append(out, p)
		}
	}
	return out
}
