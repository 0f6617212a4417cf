package client_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/client"
)

func TestFieldStates(t *testing.T) {
	is := is.New(t)
	body := client.TaskUpdate{
		TaskText:    client.Value("set"),
		TaskNote:    client.Value(""),
		ActionText:  client.Null[string](),
		UserSigns:   client.Value[[]string](nil),
		ExtraFields: client.Value(map[string]string{"Visit.Type": "Service"}),
	}
	data, err := json.Marshal(body)
	is.NoErr(err)
	// unset fields are left out; null, "" and a nil list are sent as such
	is.Equal(string(data), `{"taskText":"set","taskNote":"","actionText":null,"userSigns":[],"extraFields":{"Visit.Type":"Service"}}`)

	var back client.TaskUpdate
	is.NoErr(json.Unmarshal(data, &back))
	is.True(back.ActionText.IsNull())
	text, ok := back.TaskText.Get()
	is.True(ok)
	is.Equal(text, "set")
	is.True(back.CustomerRef.IsZero()) // absent stays unset
}

func TestDateTime(t *testing.T) {
	is := is.New(t)
	for _, tc := range []struct {
		date client.Date
		want time.Time
	}{
		{"2026-05-04", time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC)},
		{"2026-05-04T08:00:00", time.Date(2026, 5, 4, 8, 0, 0, 0, time.UTC)},
		{"2026-05-04T08:00:00+02:00", time.Date(2026, 5, 4, 6, 0, 0, 0, time.UTC)},
		{"2026-11-22T20:15:38.123Z", time.Date(2026, 11, 22, 20, 15, 38, 123e6, time.UTC)},
	} {
		got, err := tc.date.Time()
		is.NoErr(err)
		is.True(got.Equal(tc.want))
	}
	_, err := client.Date("04/05/2026").Time()
	is.True(err != nil)
	is.Equal(client.DateOf(time.Date(2026, 5, 4, 23, 0, 0, 0, time.UTC)), client.Date("2026-05-04"))
}
