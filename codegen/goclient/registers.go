package goclient

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"fieldapi/catalog"
	"fieldapi/codegen/model"
)

// clientPkg is the import path of the typed Go client.
const clientPkg = "fieldapi/client"

// clientCoreNames are declared by the hand-written files of client/; no
// generated name may take one.
var clientCoreNames = []string{
	"Client", "Option", "New", "Services", "newServices", "DefaultUserAgent",
	"WithKey", "WithClientCredentials", "WithHTTPClient", "WithUserAgent", "WithRetryPolicy", "WithIdempotencyKey",
	"RetryPolicy", "DefaultRetryPolicy", "Problem",
	"ErrUnauthorized", "ErrTokenRequired", "ErrForbidden", "ErrNotFound", "ErrConflict", "ErrRejected", "ErrRateLimited", "ErrInvalid", "ErrUnavailable",
	"Field", "Value", "Null", "Date", "DateOf", "DateTimeOf", "Ptr",
	"Page", "ExtraFieldDef", "Location", "LocateOptions", "Pin", "Document", "DocumentInfo", "DocumentContent",
	"Change", "ChangeParams",
}

// clientRegister is the client's view of one register: the names of its
// service, its parameter and body types, and its methods.
type clientRegister struct {
	*model.Register
	Service      string // CustomerService, the type of Client.Customers
	ListParams   string // CustomerListParams
	CreateType   string // CustomerCreate, with create
	UpdateType   string // CustomerUpdate, with update
	CreateAnswer string // what Create returns: the record or the create's reply
	KeyParam     string // nr: the Go parameter naming a record's key
	Filters      []clientFilter
	Lines        []*clientLine
	Actions      []*clientAction
}

// clientFilter is a list filter as a field of the ListParams type.
type clientFilter struct {
	*catalog.Filter
	GoName string
	Kind   clientFilterKind
	Doc    string
}

// clientFilterKind is the Go type of a filter parameter and how it is sent.
type clientFilterKind int

const (
	filterText   clientFilterKind = iota // string; "" sends nothing
	filterList                           // []string, sent comma-separated
	filterNumber                         // *float64
	filterBool                           // *bool
	filterSwitch                         // bool; true sends "true"
)

// clientLine is a line list: its typed input (without the owner's key and
// fixed values) and, when one line can be posted, the method that does.
type clientLine struct {
	*model.Line
	InputType  string         // TaskMaterialLine
	Fields     []*model.Field // what one line may send
	PostMethod string         // AddMaterial, when Post
	PostAnswer string         // what that method returns: the line record or the reply
}

// clientAction is an action as a method: with positional parameters when
// every field is required, else with a body type. An action with log also
// has a method reading the entries it wrote.
type clientAction struct {
	*model.Action
	Method     string // SetStatus, AddNote, Retire
	Positional bool   // the fields are parameters, not a body struct
	Params     []string
	LogMethod  string // Notes: GET on the action's path, when it declares log
}

// clientModel is the client's view of every register.
type clientModel struct {
	Registers []*clientRegister
}

// newClientModel works out the client's names and refuses a catalog whose
// names would collide in package client or in one service.
func newClientModel(m *model.Model) (*clientModel, error) {
	cm := &clientModel{}
	owner := map[string]string{}
	for _, name := range clientCoreNames {
		owner[name] = "the hand-written client"
	}
	for _, r := range m.Registers {
		if r.OutFile == ServicesFile {
			return nil, fmt.Errorf("%s: the client file %s is the one every register shares; choose another register name", r.Source, r.OutFile)
		}
		cr := newClientRegister(r)
		for _, name := range cr.typeNames() {
			if prev, taken := owner[name]; taken {
				return nil, fmt.Errorf("%s: client type %s is already declared by %s; choose another record name", r.Source, name, prev)
			}
			owner[name] = r.Source
		}
		methods := map[string]bool{}
		for _, name := range cr.methodNames() {
			if methods[name] {
				return nil, fmt.Errorf("%s: the client service %s would have two methods %s; rename the action or line list", r.Source, cr.Service, name)
			}
			methods[name] = true
		}
		cm.Registers = append(cm.Registers, cr)
	}
	return cm, nil
}

func newClientRegister(r *model.Register) *clientRegister {
	rec := r.RecordType
	cr := &clientRegister{
		Register:     r,
		Service:      rec + "Service",
		ListParams:   rec + "ListParams",
		CreateAnswer: rec,
		KeyParam:     goParam(r.Key, "key"),
	}
	if r.Has(catalog.Create) {
		cr.CreateType = rec + "Create"
		if r.CreateReply != nil {
			cr.CreateAnswer = r.CreateReply.Type
		}
	}
	if r.Has(catalog.Update) {
		cr.UpdateType = rec + "Update"
	}
	for _, f := range r.Filters {
		cr.Filters = append(cr.Filters, newClientFilter(r, f))
	}
	for _, l := range r.Lines {
		cr.Lines = append(cr.Lines, newClientLine(r, l))
	}
	for _, a := range r.Actions {
		cr.Actions = append(cr.Actions, newClientAction(r, a, cr.KeyParam))
	}
	return cr
}

// reservedParams are parameter names of the generated methods besides the key.
var reservedParams = []string{"ctx", "s", "p", "body", "line", "fileName", "content", "docID", "opt", "pin", "limit"}

// goParam is the Go parameter for a PascalCase field name, or fallback when
// that would be a keyword or another parameter's name.
func goParam(name, fallback string) string {
	p := model.Unexported(name)
	if token.IsKeyword(p) || slices.Contains(reservedParams, p) {
		return fallback
	}
	return p
}

func newClientFilter(r *model.Register, f *catalog.Filter) clientFilter {
	cf := clientFilter{Filter: f, GoName: model.Exported(f.Param)}
	field := r.Field(f.Field)
	switch {
	case f.Match == catalog.Hides:
		cf.Kind = filterSwitch
		cf.Doc = fmt.Sprintf("true also lists records whose %s is %s (hidden otherwise).", f.Field, strings.Join(f.Values, " or "))
	case f.Match == catalog.OneOf:
		cf.Kind = filterList
		cf.Doc = fmt.Sprintf("%s is one of these.", f.Field)
	case f.Match == catalog.Contains:
		cf.Doc = fmt.Sprintf("%s contains this text, ignoring case.", f.Field)
	case field != nil && field.Type == catalog.Number:
		cf.Kind = filterNumber
		cf.Doc = fmt.Sprintf("%s equals this.", f.Field)
	case field != nil && field.Type == catalog.Bool:
		cf.Kind = filterBool
		cf.Doc = fmt.Sprintf("%s is this.", f.Field)
		if f.Negate {
			cf.Doc = fmt.Sprintf("%s is the opposite of this.", f.Field)
		}
	default:
		cf.Doc = fmt.Sprintf("%s equals this.", f.Field)
	}
	if f.Default != "" {
		cf.Doc += fmt.Sprintf(" Unset: %s.", f.Default)
	}
	return cf
}

func newClientLine(owner *model.Register, l *model.Line) *clientLine {
	of := l.Of.RecordType
	input := owner.RecordType + of + "Line"
	if strings.HasPrefix(of, owner.RecordType) {
		input = of + "Input" // Order + OrderLine: OrderLineInput, not OrderOrderLineLine
	}
	cl := &clientLine{Line: l, InputType: input}
	for _, f := range l.Of.BodyFields() {
		if f.Name != l.Parent && l.Set[f.Name] == "" {
			cl.Fields = append(cl.Fields, f)
		}
	}
	if l.Post {
		cl.PostMethod = "Add" + singular(l.Name, of)
		cl.PostAnswer = of
		if l.Reply != nil {
			cl.PostAnswer = l.Reply.Type
		}
	}
	return cl
}

// singular is a line list's name for one item: its record's name when the
// list is named after it (materials, Material), else the name less a
// trailing s (lines → Line).
func singular(name, record string) string {
	if strings.EqualFold(name, record+"s") {
		return record
	}
	return model.Exported(strings.TrimSuffix(name, "s"))
}

// newClientAction names an action's method: an action named after a field
// of the record sets it (status → SetStatus), a plural noun adds one
// (notes → AddNote), any other is a verb (retire → Retire); and the method
// reading the entries of an action with log (Notes, RetireLog).
func newClientAction(r *model.Register, a *model.Action, keyParam string) *clientAction {
	ca := &clientAction{Action: a, Method: model.Exported(a.Name), Positional: true}
	switch {
	case r.Field(model.Exported(a.Name)) != nil:
		ca.Method = "Set" + model.Exported(a.Name)
	case strings.HasSuffix(a.Name, "s") && len(a.Name) > 1:
		ca.Method = "Add" + model.Exported(strings.TrimSuffix(a.Name, "s"))
	}
	if a.Log != "" {
		// The entries read under the action's own name (notes → Notes),
		// unless the action's method took it (retire → RetireLog).
		ca.LogMethod = model.Exported(a.Name)
		if ca.LogMethod == ca.Method {
			ca.LogMethod += "Log"
		}
	}
	for _, f := range a.Body.Fields {
		p := goParam(f.Name, "")
		if !f.Required || p == "" || p == keyParam || slices.Contains(ca.Params, p) {
			ca.Positional, ca.Params = false, nil
			break
		}
		ca.Params = append(ca.Params, p)
	}
	return ca
}

// typeNames are the package-level names the register's client file declares.
func (cr *clientRegister) typeNames() []string {
	names := []string{cr.RecordType, cr.Service, cr.ListParams}
	if cr.CreateType != "" {
		names = append(names, cr.CreateType)
	}
	if cr.UpdateType != "" {
		names = append(names, cr.UpdateType)
	}
	if rp := cr.CreateReply; rp != nil {
		names = append(names, rp.Type)
		for _, rl := range rp.Lines {
			names = append(names, rl.ItemType)
		}
	}
	for _, l := range cr.Lines {
		if cr.CreateType != "" || l.Post {
			names = append(names, l.InputType)
		}
		if l.Post && l.Reply != nil {
			names = append(names, l.Reply.Type)
		}
	}
	for _, a := range cr.Actions {
		if !a.Positional {
			names = append(names, a.Body.Type)
		}
	}
	return names
}

// methodNames are the methods of the register's service.
func (cr *clientRegister) methodNames() []string {
	names := []string{"List", "All", "Get"}
	if cr.CreateType != "" {
		names = append(names, "Create")
	}
	if cr.UpdateType != "" {
		names = append(names, "Update")
	}
	if cr.ExtraFields {
		names = append(names, "ExtraFields")
	}
	for _, l := range cr.Lines {
		if l.Post {
			names = append(names, l.PostMethod)
		}
	}
	for _, a := range cr.Actions {
		names = append(names, a.Method)
		if a.LogMethod != "" {
			names = append(names, a.LogMethod)
		}
	}
	if cr.ChangesFunc != "" {
		names = append(names, "Changes")
	}
	if cr.Location {
		names = append(names, "Location", "PinLocation")
	}
	if cr.Documents {
		names = append(names, "UploadDocument", "ListDocuments", "DownloadDocument")
	}
	return names
}
