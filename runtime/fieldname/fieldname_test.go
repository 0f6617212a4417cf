package fieldname

import (
	"testing"

	"github.com/matryer/is"
)

func TestResolve(t *testing.T) {
	is := is.New(t)
	valid := []string{"Nr", "PlanStartDate", "CustomerNr"}
	for name, want := range map[string]string{"Nr": "Nr", "nr": "Nr", "planStartDate": "PlanStartDate", "PlanStartDate": "PlanStartDate"} {
		got, ok := Resolve(name, valid)
		is.True(ok)
		is.Equal(got, want)
	}
	for _, name := range []string{"", "NR", "planstartdate", "customer_nr", "Status"} {
		_, ok := Resolve(name, valid)
		is.True(!ok) // neither spelling of a valid name
	}
}
