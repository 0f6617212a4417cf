package apitest

import (
	"net/http"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

// TestAddressOwners: an address belongs to exactly one owner, whose kind
// and name it shows; filters find it by owner.
func TestAddressOwners(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		customer, _ := env.FirstKey("customers", env.Key)
		object, _ := env.FirstKey("objects2", env.Key)

		t.Run("customer address", func(t *testing.T) {
			is := is.New(t)
			resp := env.Post("/v1/addresses", map[string]any{"customerNr": customer, "name": "Fakturaadress", "city": "Malmö"})
			Expect(t, resp, http.StatusCreated)
			a := resp.Object(t)
			is.Equal(a["OwnerType"], "customer")
			is.True(a["OwnerName"] != nil && a["OwnerName"] != "")
			id := a["Id"].(string)
			found := env.page(t, "/v1/addresses?customerNr="+customer)
			ids := map[any]bool{}
			for _, item := range found.Items {
				ids[item["Id"]] = true
			}
			is.True(ids[id])
		})
		t.Run("object address needs its level", func(t *testing.T) {
			is := is.New(t)
			resp := env.Post("/v1/addresses", map[string]any{"objectNr": object, "name": "Besöksadress"})
			is.Equal(resp.Status, http.StatusUnprocessableEntity)
			is.Equal(resp.Problem(t).ValidValues, []string{"1", "2", "3", "4"})
			ok := env.Post("/v1/addresses", map[string]any{"objectNr": object, "level": 2, "name": "Besöksadress"})
			Expect(t, ok, http.StatusCreated)
			is.Equal(ok.Object(t)["OwnerType"], "object")
		})
		refusals := []struct {
			name string
			body map[string]any
		}{
			{"no owner", map[string]any{"name": "Nowhere"}},
			{"two owners", map[string]any{"customerNr": customer, "supplierNr": "201", "name": "Both"}},
			{"unknown object", map[string]any{"objectNr": "no-such-object", "level": 1, "name": "Ghost"}},
		}
		for _, tc := range refusals {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				before := env.count(t, "/v1/addresses")
				resp := env.Post("/v1/addresses", tc.body)
				is.Equal(resp.Status, http.StatusUnprocessableEntity)
				is.Equal(resp.Problem(t).Title, "command_failed")
				is.Equal(env.count(t, "/v1/addresses"), before) // nothing stored
			})
		}
	})
}
