package client_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"fieldapi/apitest"
	"fieldapi/client"
	"fieldapi/runtime"
)

// TestReadShapes: a list's Fields and Expand, and Get's WithFields and
// WithExpand, send fields= and expand=: the records come with the fields
// asked (the others zero) and the expanded records filled in.
func TestReadShapes(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	_, c := start(t, apitest.Backends(t)[0], runtime.Config{})
	page, err := c.Tasks.List(ctx, client.TaskListParams{Limit: 3, Fields: []string{"Status", "Customer.Name"}, Expand: []client.TaskExpansion{client.TaskExpandCustomer}})
	is.NoErr(err)
	is.Equal(len(page.Items), 3)
	for _, task := range page.Items {
		is.True(task.Nr != "" && task.Status != "")
		is.Equal(task.CustomerNr, "") // not asked
		is.True(task.Customer != nil && task.Customer.Nr != "" && task.Customer.Name != "")
		is.Equal(task.Customer.City, "") // not asked
		is.Equal(task.Project, nil)      // not expanded
	}
	nr := page.Items[0].Nr
	task, err := c.Tasks.Get(ctx, nr, client.WithFields("CustomerNr"), client.WithExpand(client.TaskExpandCustomer, client.TaskExpandProject))
	is.NoErr(err)
	is.Equal(task.Nr, nr)
	is.True(task.CustomerNr != "" && task.Customer != nil && task.Customer.Nr == task.CustomerNr)
	is.Equal(task.Status, "")
	whole, err := c.Tasks.Get(ctx, nr)
	is.NoErr(err)
	is.True(whole.Status != "" && whole.Customer == nil)
}
