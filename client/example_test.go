package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"fieldapi/client"
)

// serverURL and demoKey (main_test.go) stand for your installation's
// address and your key.

func Example() {
	c := client.New(serverURL, client.WithKey(demoKey), client.WithUserAgent("my-integration/1.0"))
	ctx := context.Background()

	customer, err := c.Customers.Get(ctx, "1001")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(customer.Name, customer.City)
	// Output: Bergström Fastigheter AB Stockholm
}

func ExampleCustomerService_All() {
	c := client.New(serverURL, client.WithKey(demoKey))
	// Every customer whose name contains "bergström", walking the pages by cursor.
	for customer, err := range c.Customers.All(context.Background(), client.CustomerListParams{Name: "bergström", Limit: 2}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(customer.Name)
	}
	// Output:
	// Bergström Livs AB
	// Brf Bergström
	// Bergström Fastigheter AB
}

func ExampleCustomerService_Create() {
	c := client.New(serverURL, client.WithKey(demoKey))
	ctx := context.Background()
	customer, err := c.Customers.Create(ctx, client.CustomerCreate{
		Name: client.Value("Ola Nordmann AS"),
		City: client.Value("Bergen"),
		Contacts: []client.CustomerContactLine{
			{Name: client.Value("Kari Nordmann"), Email: client.Value("kari@example.no")},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	contacts, _ := c.Contacts.List(ctx, client.ContactListParams{CustomerNr: customer.Nr})
	fmt.Println(customer.Name, customer.Status, len(contacts.Items), contacts.Items[0].Name)
	// Output: Ola Nordmann AS Active 1 Kari Nordmann
}

func ExampleCustomerService_Update() {
	c := client.New(serverURL, client.WithKey(demoKey))
	ctx := context.Background()
	customer, _ := c.Customers.Create(ctx, client.CustomerCreate{
		Name: client.Value("Fjord Rør AS"), City: client.Value("Bergen"), Note: client.Value("gate code 1234"),
	})
	// Set the phone, leave the city (null; an unset field is left too),
	// clear the note ("").
	customer, err := c.Customers.Update(ctx, customer.Nr, client.CustomerUpdate{
		Phone: client.Value("+47 55 12 34 56"),
		City:  client.Null[string](),
		Note:  client.Value(""),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s | %s | %q\n", customer.Phone, customer.City, customer.Note)
	// Output: +47 55 12 34 56 | Bergen | ""
}

func ExampleTaskService_Create() {
	c := client.New(serverURL, client.WithKey(demoKey))
	created, err := c.Tasks.Create(context.Background(), client.TaskCreate{
		CustomerNr: client.Value("1031"),
		TaskText:   client.Value("Årsservice värmepump"),
		Status:     client.Value("Sent"),
		UserSigns:  client.Value([]string{"ANLI"}),
		Materials:  []client.TaskMaterialLine{{ProductNr: client.Value("4025"), Quantity: client.Value(1.0)}},
		Times:      []client.TaskTimeLine{{TimeType: client.Value("Resa, km/dag"), Hours: client.Value(34.0)}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(created.Status, created.Materials[0].ProductNr, created.Times[0].TimeType)
	// Output: Sent 4025 Resa, km/dag
}

func ExampleTaskService_SetStatus() {
	c := client.New(serverURL, client.WithKey(demoKey))
	ctx := context.Background()
	created, _ := c.Tasks.Create(ctx, client.TaskCreate{CustomerNr: client.Value("1031"), Status: client.Value("Sent")})

	task, err := c.Tasks.SetStatus(ctx, created.Nr, "Received")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(task.Status)

	// A move the engine's rules refuse is a *client.Problem listing the
	// moves that are allowed.
	_, err = c.Tasks.SetStatus(ctx, created.Nr, "Archived")
	var p *client.Problem
	if errors.As(err, &p) && errors.Is(err, client.ErrRejected) {
		fmt.Println(p.Status, p.Code, p.ValidValues)
	}
	// Output:
	// Received
	// 422 command_failed [InProgress Planned]
}

func ExampleTaskService_UploadDocument() {
	c := client.New(serverURL, client.WithKey(demoKey))
	ctx := context.Background()
	created, _ := c.Tasks.Create(ctx, client.TaskCreate{CustomerNr: client.Value("1031")})

	doc, err := c.Tasks.UploadDocument(ctx, created.Nr, "notes.txt", strings.NewReader("Filter bytt"))
	if err != nil {
		fmt.Println(err)
		return
	}
	content, err := c.Tasks.DownloadDocument(ctx, created.Nr, doc.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer content.Body.Close()
	data, _ := io.ReadAll(content.Body)
	fmt.Println(content.FileName, content.ContentType, string(data))
	// Output: notes.txt text/plain; charset=utf-8 Filter bytt
}

func ExampleWithIdempotencyKey() {
	c := client.New(serverURL, client.WithKey(demoKey))
	// A key derived from your own data makes the call safe to repeat, even
	// from another run of your program: the server answers the repeat with
	// the first call's answer and creates nothing twice.
	ctx := client.WithIdempotencyKey(context.Background(), "booking-anli-2027-vacation")
	booking := client.TimeCreate{
		TimeType: client.Value("Semester"), UserSign: client.Value("ANLI"),
		Date: client.Value(client.Date("2027-07-05T00:00:00")), StopDate: client.Value(client.Date("2027-07-24T00:00:00")),
		Hours: client.Value(15.0),
	}
	first, _ := c.Times.Create(ctx, booking)
	again, err := c.Times.Create(ctx, booking)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(first.Id == again.Id)
	// Output: true
}

func ExampleProblem() {
	c := client.New(serverURL, client.WithKey(demoKey))
	_, err := c.Customers.Get(context.Background(), "no-such-customer")
	if errors.Is(err, client.ErrNotFound) {
		fmt.Println("no such customer")
	}
	// Output: no such customer
}

func ExampleWithIfMatch() {
	c := client.New(serverURL, client.WithKey(demoKey))
	ctx := context.Background()

	// Read the record and its version.
	var read client.Response
	customer, err := c.Customers.Get(client.WithResponse(ctx, &read), "1004")
	if err != nil {
		fmt.Println(err)
		return
	}
	// Change it only while nobody else has: the first change goes ahead,
	// the second, still naming the version read, is refused and writes
	// nothing.
	_, err = c.Customers.Update(client.WithIfMatch(ctx, read.ETag), customer.Nr, client.CustomerUpdate{Note: client.Value("first")})
	fmt.Println(err)
	_, err = c.Customers.Update(client.WithIfMatch(ctx, read.ETag), customer.Nr, client.CustomerUpdate{Note: client.Value("second")})
	fmt.Println(errors.Is(err, client.ErrPreconditionFailed))

	// A conditional Get sends the record only once it has changed.
	var now client.Response
	_, err = c.Customers.Get(client.WithResponse(ctx, &now), customer.Nr)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.Customers.Get(client.WithIfNoneMatch(ctx, now.ETag), customer.Nr)
	fmt.Println(errors.Is(err, client.ErrNotModified))
	// Output:
	// <nil>
	// true
	// true
}

func ExampleWithResponse() {
	c := client.New(serverURL, client.WithKey(demoKey))
	var resp client.Response
	ctx := client.WithResponse(context.Background(), &resp)
	_, err := c.Customers.Update(ctx, "1005", client.CustomerUpdate{Note: client.Value("called back")})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The record's new version, the request id for the server's log, and
	// whether the server replayed an earlier answer to the same key.
	fmt.Println(resp.StatusCode, resp.ETag != "", resp.RequestID != "", resp.Replayed)
	// Output: 200 true true false
}

func ExampleTaskService_Notes() {
	c := client.New(serverURL, client.WithKey(demoKey))
	ctx := context.Background()

	task, err := c.Tasks.Create(ctx, client.TaskCreate{CustomerNr: client.Value("1031")})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.Tasks.AddNote(ctx, task.Nr, "Porten är låst, nyckel i receptionen"); err != nil {
		fmt.Println(err)
		return
	}
	notes, err := c.Tasks.Notes(ctx, task.Nr, 0) // newest first
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range notes {
		fmt.Println(n.Action, n.Sign, n.ViaAPI, n.Detail)
	}
	// Output: note API true Porten är låst, nyckel i receptionen
}

func ExampleClient_Batch() {
	c := client.New(serverURL, client.WithKey(demoKey))
	ctx := context.Background()
	// A customer, a task for it and a material line on the task: all or nothing.
	b := client.NewAtomicBatch()
	c1 := client.Add[client.Customer](b, "c1", "POST", "/v1/customers", client.CustomerCreate{Name: client.Value("Batch Nordmann AS")})
	t1 := client.Add[client.TaskCreated](b, "t1", "POST", "/v1/tasks", client.TaskCreate{CustomerNr: client.Value(c1.Ref("Nr"))})
	m1 := client.Add[client.Material](b, "m1", "POST", client.BatchPath("/v1/tasks", t1.Ref("nr"), "materials"),
		client.TaskMaterialLine{ProductNr: client.Value("4025"), Quantity: client.Value(2.0)})
	results, err := c.Batch(ctx, b)
	if err != nil {
		fmt.Println(err) // an atomic batch that failed wrote nothing; the problem names the operation
		return
	}
	customer, _ := c1.Result(results)
	line, _ := m1.Result(results)
	fmt.Println(customer.Name, line.ProductNr, line.Quantity)

	// A task for a customer that does not exist fails the batch: nothing is written.
	b = client.NewAtomicBatch()
	client.Add[client.Customer](b, "c1", "POST", "/v1/customers", client.CustomerCreate{Name: client.Value("Never Nordmann AS")})
	client.Add[client.TaskCreated](b, "t1", "POST", "/v1/tasks", client.TaskCreate{CustomerNr: client.Value("no-such-customer")})
	_, err = c.Batch(ctx, b)
	var p *client.Problem
	if errors.As(err, &p) {
		fmt.Println(p.Status, p.Code, p.OperationID)
	}
	// Output:
	// Batch Nordmann AS 4025 2
	// 422 command_failed t1
}
