package fieldclient

// This test runs in a temporary module beside client.go, which oapi-codegen
// generates from the document a running fieldapi serves
// (TestOapiCodegenClient in apitest starts the service and passes its
// address and a key). It uses the typed methods only: a client generated
// from the document must do the README's calls as they are written.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"slices"
	"testing"
)

func newClient(t *testing.T) *ClientWithResponses {
	t.Helper()
	url, key := os.Getenv("FIELDAPI_CLIENT_URL"), os.Getenv("FIELDAPI_CLIENT_KEY")
	if url == "" || key == "" {
		t.Skip("run by apitest's TestOapiCodegenClient, which serves fieldapi")
	}
	c, err := NewClientWithResponses(url, WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+key)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// idem is a fresh Idempotency-Key.
func idem() IdempotencyKey {
	b := make([]byte, 8)
	rand.Read(b)
	return IdempotencyKey("oapi-" + hex.EncodeToString(b))
}

func ptr[T any](v T) *T { return &v }

// answered fails the test unless the call answered status.
func answered(t *testing.T, what string, err error, resp interface{ StatusCode() int }, body []byte, status int) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if resp.StatusCode() != status {
		t.Fatalf("%s: status %d, want %d: %s", what, resp.StatusCode(), status, body)
	}
}

func TestCustomerWithContacts(t *testing.T) {
	c, ctx := newClient(t), context.Background()
	created, err := c.CreateCustomerWithResponse(ctx, &CreateCustomerParams{IdempotencyKey: idem()}, CustomerCreate{
		Name: ptr("Ola Nordmann AS"),
		City: ptr("Bergen"),
		Contacts: &[]CustomerContactsItem{
			{Name: "Kari Nordmann", Email: ptr("kari@example.no")},
			{Name: "Per Nordmann", MostImportant: ptr(true)},
		},
	})
	answered(t, "create customer", err, created, created.Body, http.StatusCreated)
	customer := created.JSON201
	if customer.Nr == "" || customer.Name == nil || *customer.Name != "Ola Nordmann AS" {
		t.Fatalf("created customer %+v", customer)
	}
	if created.HTTPResponse.Header.Get("Location") != "/v1/customers/"+customer.Nr {
		t.Errorf("Location %q", created.HTTPResponse.Header.Get("Location"))
	}
	contacts, err := c.ListContactsWithResponse(ctx, &ListContactsParams{CustomerNr: &customer.Nr})
	answered(t, "list contacts", err, contacts, contacts.Body, http.StatusOK)
	var names []string
	for _, ct := range contacts.JSON200.Items {
		names = append(names, *ct.Name)
		if ct.CustomerNr == nil || *ct.CustomerNr != customer.Nr {
			t.Errorf("contact %s belongs to %v", ct.Id, ct.CustomerNr)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"Kari Nordmann", "Per Nordmann"}) {
		t.Fatalf("contacts %v", names)
	}
}

func TestPatchTaskAssignees(t *testing.T) {
	c, ctx := newClient(t), context.Background()
	created, err := c.CreateTaskWithResponse(ctx, &CreateTaskParams{IdempotencyKey: idem()}, TaskCreate{
		CustomerNr: "1031",
		TaskText:   ptr("Årsservice värmepump"),
		UserSigns:  &[]string{"ANLI"},
	})
	answered(t, "create task", err, created, created.Body, http.StatusCreated)
	nr := created.JSON201.Nr

	patched, err := c.UpdateTaskWithResponse(ctx, nr, &UpdateTaskParams{IdempotencyKey: idem()}, TaskUpdate{
		UserSigns: &[]string{"ANLI", "MASV"},
	})
	answered(t, "patch task", err, patched, patched.Body, http.StatusOK)
	// A record's fields but its key are optional (fields= may leave them out).
	if got := patched.JSON200.UserSigns; got == nil || !slices.Equal(*got, []string{"ANLI", "MASV"}) {
		t.Fatalf("UserSigns after PATCH %v", got)
	}
	read, err := c.GetTaskWithResponse(ctx, nr, nil)
	answered(t, "get task", err, read, read.Body, http.StatusOK)
	if read.JSON200.UserSigns == nil || !slices.Equal(*read.JSON200.UserSigns, []string{"ANLI", "MASV"}) || read.JSON200.CustomerNr == nil || *read.JSON200.CustomerNr != "1031" {
		t.Fatalf("task read back: UserSigns %v CustomerNr %v", read.JSON200.UserSigns, read.JSON200.CustomerNr)
	}
}

func TestOrderLinePriceKeepsItsCents(t *testing.T) {
	c, ctx := newClient(t), context.Background()
	const price = 1234567.89
	order, err := c.CreateOrderWithResponse(ctx, &CreateOrderParams{IdempotencyKey: idem()}, OrderCreate{
		CustomerNr: ptr("1001"),
		Lines:      &[]OrderLinesItem{{ProductNr: "4001", Quantity: ptr(1.0), Price: ptr(price)}},
	})
	answered(t, "create order", err, order, order.Body, http.StatusCreated)
	if order.JSON201.Lines == nil {
		t.Fatalf("order as created has no lines: %s", order.Body)
	}
	lines := *order.JSON201.Lines
	if len(lines) != 1 || lines[0].Price == nil || *lines[0].Price != price {
		t.Fatalf("order lines as created: %s", order.Body)
	}

	added, err := c.AddOrderLinesWithResponse(ctx, order.JSON201.Nr, &AddOrderLinesParams{IdempotencyKey: idem()}, OrderLinesItem{
		ProductNr: "4004", Quantity: ptr(2.0),
	})
	answered(t, "add order line", err, added, added.Body, http.StatusCreated)
	id := added.JSON201.Id
	// The conditional headers are parameters: the PATCH names the version
	// the add answered with, and a GET naming the PATCH's version is 304.
	etag := added.HTTPResponse.Header.Get("ETag")
	stale, err := c.UpdateOrderLineWithResponse(ctx, id, &UpdateOrderLineParams{IdempotencyKey: idem(), IfMatch: ptr(`"stale"`)}, OrderLineUpdate{Price: ptr(price)})
	answered(t, "patch order line with a stale If-Match", err, stale, stale.Body, http.StatusPreconditionFailed)
	patched, err := c.UpdateOrderLineWithResponse(ctx, id, &UpdateOrderLineParams{IdempotencyKey: idem(), IfMatch: &etag}, OrderLineUpdate{Price: ptr(price)})
	answered(t, "patch order line", err, patched, patched.Body, http.StatusOK)
	unchanged, err := c.GetOrderLineWithResponse(ctx, id, &GetOrderLineParams{IfNoneMatch: ptr(patched.HTTPResponse.Header.Get("ETag"))})
	answered(t, "get order line unchanged", err, unchanged, unchanged.Body, http.StatusNotModified)
	read, err := c.GetOrderLineWithResponse(ctx, id, nil)
	answered(t, "get order line", err, read, read.Body, http.StatusOK)
	if read.JSON200.Price == nil || *read.JSON200.Price != price {
		t.Fatalf("price read back %v, want %v: %s", read.JSON200.Price, price, read.Body)
	}
	if read.JSON200.TotalPrice == nil || *read.JSON200.TotalPrice != 2*price {
		t.Errorf("TotalPrice %v, want %v", read.JSON200.TotalPrice, 2*price)
	}
}
