package client_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/apitest"
	"fieldapi/client"
	"fieldapi/runtime"
)

// TestOptimisticConcurrency runs the ETag round trip through the client
// against the real server: the version a Get or a write answers with,
// a change under that version (200), the same change under the old one
// (412, nothing written, never retried), a conditional Get (304), and
// actions and line posts under a stale owner version.
func TestOptimisticConcurrency(t *testing.T) {
	apitest.Each(t, func(t *testing.T, b apitest.Backend) {
		_, c := start(t, b, runtime.Config{})
		ctx := context.Background()

		t.Run("update with the ETag read, then with the old one", func(t *testing.T) {
			is := is.New(t)
			var created client.Response
			customer, err := c.Customers.Create(client.WithResponse(ctx, &created), client.CustomerCreate{Name: client.Value("Etag AB"), City: client.Value("Lund")})
			is.NoErr(err)
			is.Equal(created.StatusCode, 201)
			is.True(strings.HasPrefix(created.ETag, `"`)) // a strong tag as sent
			is.True(created.RequestID != "")
			is.True(!created.Replayed)
			is.True(strings.HasPrefix(created.IdempotencyKey, "fieldapi-go-"))
			is.Equal(created.Attempts, 1)

			var read client.Response
			_, err = c.Customers.Get(client.WithResponse(ctx, &read), customer.Nr)
			is.NoErr(err)
			is.Equal(read.StatusCode, 200)
			is.Equal(read.ETag, created.ETag) // the same version, whichever answer carried it
			is.Equal(read.IdempotencyKey, "") // reads send none

			var first client.Response
			changed, err := c.Customers.Update(client.WithResponse(client.WithIfMatch(ctx, read.ETag), &first), customer.Nr,
				client.CustomerUpdate{City: client.Value("Malmö")})
			is.NoErr(err)
			is.Equal(changed.City, "Malmö")
			is.Equal(first.StatusCode, 200)
			is.True(first.ETag != "" && first.ETag != read.ETag) // a new version

			var stale client.Response
			_, err = c.Customers.Update(client.WithResponse(client.WithIfMatch(ctx, read.ETag), &stale), customer.Nr,
				client.CustomerUpdate{City: client.Value("Ystad")})
			is.True(errors.Is(err, client.ErrPreconditionFailed))
			var p *client.Problem
			is.True(errors.As(err, &p))
			is.Equal(p.Status, 412)
			is.Equal(p.Code, "precondition_failed")
			is.Equal(stale.StatusCode, 412)
			is.Equal(stale.Attempts, 1) // never retried
			is.Equal(stale.RequestID, p.RequestID)

			now, err := c.Customers.Get(client.WithResponse(ctx, &read), customer.Nr)
			is.NoErr(err)
			is.Equal(now.City, "Malmö")     // the stale write changed nothing
			is.Equal(read.ETag, first.ETag) // nor the version

			// The bare value, without quotes, is accepted too.
			_, err = c.Customers.Update(client.WithIfMatch(ctx, strings.Trim(first.ETag, `"`)), customer.Nr, client.CustomerUpdate{City: client.Value("Ystad")})
			is.NoErr(err)
		})

		t.Run("conditional get", func(t *testing.T) {
			is := is.New(t)
			var held client.Response
			customer, err := c.Customers.Get(client.WithResponse(ctx, &held), "1001")
			is.NoErr(err)

			var resp client.Response
			same, err := c.Customers.Get(client.WithResponse(client.WithIfNoneMatch(ctx, held.ETag), &resp), "1001")
			is.True(errors.Is(err, client.ErrNotModified))
			var p *client.Problem
			is.True(!errors.As(err, &p)) // not a problem: keep the copy held
			is.Equal(same, client.Customer{})
			is.Equal(resp.StatusCode, 304)
			is.Equal(resp.ETag, held.ETag)

			// Nothing held yet: an empty ETag reads as usual.
			again, err := c.Customers.Get(client.WithIfNoneMatch(ctx, ""), "1001")
			is.NoErr(err)
			is.Equal(again.Name, customer.Name)

			// Once the record changed, the Get answers it with its new version.
			_, err = c.Customers.Update(ctx, "1001", client.CustomerUpdate{Phone: client.Value("+46 8 123 45 67")})
			is.NoErr(err)
			changed, err := c.Customers.Get(client.WithResponse(client.WithIfNoneMatch(ctx, held.ETag), &resp), "1001")
			is.NoErr(err)
			is.Equal(changed.Phone, "+46 8 123 45 67")
			is.Equal(resp.StatusCode, 200)
			is.True(resp.ETag != held.ETag)
		})

		t.Run("actions and line posts name the owner's version", func(t *testing.T) {
			is := is.New(t)
			var created client.Response
			task, err := c.Tasks.Create(client.WithResponse(ctx, &created), client.TaskCreate{CustomerNr: client.Value("1031"), TaskText: client.Value("Etag task")})
			is.NoErr(err)
			old := created.ETag

			var moved client.Response
			_, err = c.Tasks.SetStatus(client.WithResponse(client.WithIfMatch(ctx, old), &moved), task.Nr, "Sent")
			is.NoErr(err)
			is.True(moved.ETag != old)

			_, err = c.Tasks.SetStatus(client.WithIfMatch(ctx, old), task.Nr, "Received")
			is.True(errors.Is(err, client.ErrPreconditionFailed))
			_, err = c.Tasks.AddMaterial(client.WithIfMatch(ctx, old), task.Nr, client.TaskMaterialLine{ProductNr: client.Value("4025"), Quantity: client.Value(1.0)})
			is.True(errors.Is(err, client.ErrPreconditionFailed))
			now, err := c.Tasks.Get(ctx, task.Nr)
			is.NoErr(err)
			is.Equal(now.Status, "Sent") // neither stale write ran
			is.Equal(len(now.Materials), 0)

			var added, line, owner client.Response
			material, err := c.Tasks.AddMaterial(client.WithResponse(client.WithIfMatch(ctx, moved.ETag), &added), task.Nr, client.TaskMaterialLine{ProductNr: client.Value("4025"), Quantity: client.Value(1.0)})
			is.NoErr(err)
			is.Equal(added.StatusCode, 201)
			_, err = c.Materials.Get(client.WithResponse(ctx, &line), material.Id)
			is.NoErr(err)
			is.Equal(added.ETag, line.ETag) // the line's own version...
			now, err = c.Tasks.Get(client.WithResponse(ctx, &owner), task.Nr)
			is.NoErr(err)
			is.Equal(len(now.Materials), 1)
			is.True(owner.ETag != added.ETag && owner.ETag != moved.ETag) // ...not the owner's, which moved on
		})

		t.Run("two writers with one ETag: one wins", func(t *testing.T) {
			is := is.New(t)
			var read client.Response
			_, err := c.Customers.Get(client.WithResponse(ctx, &read), "1002")
			is.NoErr(err)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, city := range []string{"Umeå", "Luleå"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = c.Customers.Update(client.WithIfMatch(ctx, read.ETag), "1002", client.CustomerUpdate{City: client.Value(city)})
				}()
			}
			wg.Wait()
			is.True((errs[0] == nil) != (errs[1] == nil)) // exactly one succeeded
			for _, err := range errs {
				is.True(err == nil || errors.Is(err, client.ErrPreconditionFailed))
			}
		})

		t.Run("a replay says so and carries no ETag", func(t *testing.T) {
			is := is.New(t)
			key := "replay-" + strconv.FormatInt(time.Now().UnixNano(), 36) // fresh on a database kept between runs
			keyed := client.WithIdempotencyKey(ctx, key)
			body := client.CustomerUpdate{Note: client.Value("replayed")}
			var first, second client.Response
			_, err := c.Customers.Update(client.WithResponse(keyed, &first), "1003", body)
			is.NoErr(err)
			_, err = c.Customers.Update(client.WithResponse(keyed, &second), "1003", body)
			is.NoErr(err)
			is.True(!first.Replayed && first.ETag != "")
			is.True(second.Replayed)
			is.Equal(second.ETag, "")
			is.Equal(second.IdempotencyKey, key)

			// Its empty ETag cannot turn a conditional write into a blind one.
			_, err = c.Customers.Update(client.WithIfMatch(ctx, second.ETag), "1003", body)
			is.True(err != nil && strings.Contains(err.Error(), "empty ETag"))
		})

		t.Run("a write that cannot be conditional refuses If-Match", func(t *testing.T) {
			is := is.New(t)
			var resp client.Response
			_, err := c.Customers.Create(client.WithResponse(client.WithIfMatch(ctx, `"x"`), &resp), client.CustomerCreate{Name: client.Value("Never AB")})
			is.True(err != nil && strings.Contains(err.Error(), "cannot be conditional"))
			is.Equal(resp.Attempts, 0) // nothing was sent
			page, err := c.Customers.List(client.WithIfMatch(ctx, `"x"`), client.CustomerListParams{Name: "Never AB"})
			is.NoErr(err) // reads ignore it
			is.Equal(len(page.Items), 0)
		})
	})
}
