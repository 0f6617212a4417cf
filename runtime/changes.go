package runtime

import (
	"net/http"

	"fieldapi/engine"
	"fieldapi/runtime/listquery"
)

// Reading the engine's change log of a record (spec 1: every write adds an
// entry, signed and marked as made via the API; a line's write is logged
// on its owner too). The routes need the engine's optional ChangeLog
// capability. A change log is a short list, newest first: the newest
// `limit` entries, in the envelope of the other short lists, without
// paging.

// Changes serves GET /v1/<register>/{key}/changes: the record's entries,
// newest first; query limit, and action to keep one action's entries.
func Changes(c *Call, register string) error {
	return listChanges(c, register, "")
}

// ActionLog serves GET /v1/<register>/{key}/<action> for an action that
// declares the change-log action of the entries it writes (log in the
// catalog): those entries, newest first; query limit.
func ActionLog(c *Call, register, logAction string) error {
	return listChanges(c, register, logAction)
}

// listChanges lists the record's entries of logAction, or with "" of any
// action (the caller may then name one).
func listChanges(c *Call, register, logAction string) error {
	changeLog, key, err := recordCapability[engine.ChangeLog](c, "the change log")
	if err != nil {
		return err
	}
	values, err := c.Query()
	if err != nil {
		return err
	}
	q, err := listquery.ParseChanges(values, logAction)
	if err != nil {
		return err
	}
	list, err := changeLog.Changes(c.Context(), c.Session, register, key, q)
	if err != nil {
		return err
	}
	if list == nil {
		list = []engine.Change{}
	}
	return c.JSON(http.StatusOK, Collection[engine.Change]{Items: list, Count: len(list)})
}
