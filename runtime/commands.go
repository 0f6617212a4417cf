package runtime

import (
	"net/http"

	"fieldapi/engine"
	"fieldapi/runtime/problem"
)

// Handlers for writes on an existing record beyond PATCH. They need the
// engine's optional Commands capability.

// capabilityOf returns the engine's optional capability C, or 501 when the
// attached engine does not offer it.
func capabilityOf[C any](c *Call, what string) (C, error) {
	capability, ok := c.Engine.(C)
	if !ok {
		return capability, problem.NotImplemented(what)
	}
	return capability, nil
}

// recordCapability is capabilityOf with the record key of the path.
func recordCapability[C any](c *Call, what string) (C, string, error) {
	capability, err := capabilityOf[C](c, what)
	if err != nil {
		return capability, "", err
	}
	key, err := c.Key()
	return capability, key, err
}

// AddLine serves POST /v1/<register>/{key}/<line>: 201 with the line as
// written (or the reply the catalog declares).
func AddLine[W any, P interface {
	*W
	Body
}, R any](c *Call, register, line string, shape Shape, view func(engine.Record) R) error {
	cmd, err := capabilityOf[engine.Commands](c, "lines and actions on records")
	if err != nil {
		return err
	}
	return writeRecord[W, P](c, "", shape, http.StatusCreated, view, func(key string, in engine.Input, r engine.Receipt) (engine.Response, error) {
		return cmd.AddLine(c.Context(), c.Session, register, key, line, in, r)
	})
}

// Act serves POST /v1/<register>/{key}/<action>: 200 with the record after it.
func Act[W any, P interface {
	*W
	Body
}, R any](c *Call, register, action string, shape Shape, view func(engine.Record) R) error {
	cmd, err := capabilityOf[engine.Commands](c, "lines and actions on records")
	if err != nil {
		return err
	}
	return writeRecord[W, P](c, "", shape, http.StatusOK, view, func(key string, in engine.Input, r engine.Receipt) (engine.Response, error) {
		return cmd.Act(c.Context(), c.Session, register, key, action, in, r)
	})
}
