package model

import (
	"fieldapi/catalog"
)

// Body is a request body type: a register's write body, or the small body
// of an action.
type Body struct {
	Type        string // CustomerWrite, TaskStatusBody
	Doc         string // the first line of its doc comment
	Fields      []*Field
	ExtraFields bool    // carries extraFields
	Lines       []*Line // line lists it may carry
}

// Action is a named command on one record: POST /v1/<register>/{key}/<name>;
// with log, GET on the same path lists the change-log entries it wrote.
type Action struct {
	*catalog.Action
	Body     *Body
	ShapeVar string // taskStatusShape
	Func     string // actTaskStatus
	LogFunc  string // listTaskNotes, when it declares log
	Path     string // /v1/tasks/:key/status
	DocPath  string // /v1/tasks/{Nr}/status
}

// Reply is a summary a write answers with instead of the whole record, in
// camelCase: a create's reply, or the reply to adding one line.
type Reply struct {
	Type     string // TaskCreated, OrderLinesReply
	ViewFunc string // viewTaskCreated
	Doc      string
	Owner    *Register // whose fields it copies
	Fields   []*Field
	Lines    []*ReplyLine
}

// Replies are the reply types of a register: its create's, then its line
// posts'.
func (r *Register) Replies() []*Reply {
	var out []*Reply
	if r.CreateReply != nil {
		out = append(out, r.CreateReply)
	}
	for _, l := range r.Lines {
		if l.Reply != nil {
			out = append(out, l.Reply)
		}
	}
	return out
}

// ReplyLine is a line list inside a create's reply.
type ReplyLine struct {
	*Line
	ItemType string // TaskCreatedMaterials
	Fields   []*Field
}

// completeCommands works out the names of everything beyond list, get,
// create and update: bodies, line posts, actions and their logs, replies,
// the change log, locations and documents. It runs once every register's
// lines are known.
func (r *Register) completeCommands() {
	if r.HasBody {
		r.Body = &Body{
			Type:        r.WriteType,
			Doc:         r.WriteType + " is a camelCase request body of the " + r.Name + " register (" + r.Source + ").",
			Fields:      r.BodyFields(),
			ExtraFields: r.ExtraFields,
			Lines:       r.Lines,
		}
	}
	rec := r.RecordType
	for _, l := range r.Lines {
		if l.Read {
			r.ReadLines = append(r.ReadLines, l)
		}
		if !l.Post {
			continue
		}
		l.PostFunc = "add" + rec + l.GoName
		l.Path = r.ItemPath + "/" + l.Name
		l.DocPath = r.ItemDocPath + "/" + l.Name
		if len(l.PostReply) > 0 {
			l.Reply = &Reply{
				Type:     rec + l.GoName + "Reply",
				ViewFunc: "view" + rec + l.GoName + "Reply",
				Doc:      "is the answer to POST " + l.DocPath + ".",
				Owner:    l.Of,
				Fields:   l.Of.fieldsNamed(l.PostReply),
			}
		}
	}
	for _, ca := range r.Register.Actions {
		name := Exported(ca.Name)
		a := &Action{
			Action:   ca,
			ShapeVar: Unexported(rec) + name + "Shape",
			Func:     "act" + rec + name,
			Path:     r.ItemPath + "/" + ca.Name,
			DocPath:  r.ItemDocPath + "/" + ca.Name,
		}
		a.Body = &Body{Type: rec + name + "Body", Doc: rec + name + "Body is the body of POST " + a.DocPath + " (" + r.Source + ")."}
		if ca.Log != "" {
			a.LogFunc = "list" + rec + name
		}
		for _, cf := range ca.Fields {
			a.Body.Fields = append(a.Body.Fields, &Field{Field: cf, GoName: cf.Name})
		}
		r.Actions = append(r.Actions, a)
	}
	if cr := r.Register.CreateReply; cr != nil {
		r.CreateReply = &Reply{
			Type:     rec + "Created",
			ViewFunc: "view" + rec + "Created",
			Doc:      "is the answer to POST " + r.CollectionPath + ".",
			Owner:    r,
			Fields:   r.fieldsNamed(cr.Fields),
		}
		for _, l := range r.Lines {
			if names, ok := cr.Lines[l.Name]; ok {
				r.CreateReply.Lines = append(r.CreateReply.Lines, &ReplyLine{Line: l, ItemType: rec + "Created" + l.GoName, Fields: l.Of.fieldsNamed(names)})
			}
		}
	}
	if r.HasWrites {
		r.ChangesFunc = "list" + rec + "Changes"
	}
	if r.Location {
		r.GetLocationFunc, r.PinLocationFunc = "get"+rec+"Location", "pin"+rec+"Location"
	}
	if r.Documents {
		r.AddDocumentFunc, r.ListDocumentsFunc, r.GetDocumentFunc = "add"+rec+"Document", "list"+rec+"Documents", "get"+rec+"Document"
	}
	r.Routes = r.routes()
}

// fieldsNamed returns the fields with the given names, in that order.
func (r *Register) fieldsNamed(names []string) []*Field {
	var out []*Field
	for _, name := range names {
		for _, f := range r.Fields {
			if f.Name == name {
				out = append(out, f)
			}
		}
	}
	return out
}

// CreateView is the mapper a create answers with.
func (r *Register) CreateView() string {
	if r.CreateReply != nil {
		return r.CreateReply.ViewFunc
	}
	return r.ViewFunc
}

// PostView is the mapper the POST of one line answers with.
func (l *Line) PostView() string {
	if l.Reply != nil {
		return l.Reply.ViewFunc
	}
	return l.Of.ViewFunc
}

// CreatedAt says where the resource a route creates lives, for its
// Location header: base (empty: the request's path) + "/" + the value of
// member in the 201 answer. ok is false for routes that answer no 201.
func (r *Register) CreatedAt(rt RouteSpec) (base, member string, ok bool) {
	switch rt.Kind {
	case KindCreate:
		return "", replyMember(r, r.CreateReply), true
	case KindUpsert: // the record's address by its key, whichever key the PUT named
		return r.CollectionPath, replyMember(r, r.CreateReply), true
	case KindAddDocument:
		return "", "id", true
	case KindAddLine:
		for _, l := range r.Lines {
			if l.Post && l.DocPath == rt.DocPath {
				return l.Of.CollectionPath, replyMember(l.Of, l.Reply), true
			}
		}
	}
	return "", "", false
}

// replyMember is the answer's member holding the record's key: the
// PascalCase key of the record, or its camelCase name in a reply.
func replyMember(r *Register, reply *Reply) string {
	if reply == nil {
		return r.Key
	}
	return catalog.WriteName(r.Key)
}
