package client_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"fieldapi/apitest"
	"fieldapi/client"
	"fieldapi/runtime"
)

// TestListShape: the typed sort keys, filter operators and count mode
// reach the server and shape the answer.
func TestListShape(t *testing.T) {
	apitest.Each(t, func(t *testing.T, b apitest.Backend) {
		t.Parallel()
		_, c := start(t, b, runtime.Config{})
		ctx := context.Background()
		page, err := c.Tasks.List(ctx, client.TaskListParams{
			Limit: 5, PlanStartDateGte: "2025-01-01", StatusIn: []string{"Finished", "Planned"},
			Sort: []client.TaskSort{client.TaskSortPlanStartDateDesc, client.TaskSortNr}, Count: client.CountNone,
		})
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != nil || len(page.Items) == 0 {
			t.Fatalf("total %v, %d items; want nil and some", page.Total, len(page.Items))
		}
		var dates []string
		for _, task := range page.Items {
			if task.Status != "Finished" && task.Status != "Planned" || string(task.PlanStartDate) < "2025-01-01" {
				t.Errorf("task %s (%s, %s) does not pass the filters", task.Nr, task.Status, task.PlanStartDate)
			}
			dates = append(dates, string(task.PlanStartDate))
		}
		if !slices.IsSortedFunc(dates, func(a, b string) int { return -strings.Compare(a, b) }) {
			t.Errorf("plan dates %q are not latest first", dates)
		}
		n := 0
		for _, err := range c.Tasks.All(ctx, client.TaskListParams{Limit: 7, Sort: []client.TaskSort{client.TaskSortPlanStopDate}}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if all, err := c.Tasks.List(ctx, client.TaskListParams{Limit: 1}); err != nil || all.Total == nil || *all.Total != n {
			t.Errorf("All under a sort read %d tasks; want the total %v (%v)", n, all.Total, err)
		}
	})
}
