package runtime

import (
	"net/http"

	"fieldapi/engine"
)

// Handlers for writes on an existing record beyond PATCH. They need the
// engine's optional Commands capability.

func commandsOf(c *Call) (engine.Commands, error) {
	if cmd, ok := c.Engine.(engine.Commands); ok {
		return cmd, nil
	}
	return nil, NotImplemented("this engine does not offer lines and actions on records")
}

// AddLine serves POST /v1/<register>/{key}/<line>: 201 with the line as
// written (or the reply the catalog declares).
func AddLine[W any, P interface {
	*W
	Body
}, R any](c *Call, register, line string, shape Shape, view func(engine.Record) R) error {
	cmd, err := commandsOf(c)
	if err != nil {
		return err
	}
	return writeRecord[W, P](c, shape, http.StatusCreated, view, func(key string, in engine.Input, r engine.Receipt) (engine.Response, error) {
		return cmd.AddLine(c.Context(), c.Session, register, key, line, in, r)
	})
}

// Act serves POST /v1/<register>/{key}/<action>: 200 with the record after it.
func Act[W any, P interface {
	*W
	Body
}, R any](c *Call, register, action string, shape Shape, view func(engine.Record) R) error {
	cmd, err := commandsOf(c)
	if err != nil {
		return err
	}
	return writeRecord[W, P](c, shape, http.StatusOK, view, func(key string, in engine.Input, r engine.Receipt) (engine.Response, error) {
		return cmd.Act(c.Context(), c.Session, register, key, action, in, r)
	})
}
