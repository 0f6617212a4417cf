// Package router finds the handler of a method and escaped path: paths
// without parameters in a map, paths with parameters (httprouter syntax,
// :name) in httprouter trees; and, for a path no route of the method
// takes, the methods that do take it (an answer of 405 lists them).
package router

import (
	"maps"
	"slices"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// Router is a route table; add every route before the first lookup.
type Router struct {
	static  map[string]map[string]httprouter.Handle // path → method → handler: paths without parameters
	routers []*httprouter.Router                    // paths with parameters (see Handle)
	methods []string                                // every method some route uses, for 405
}

// New is an empty route table.
func New() *Router {
	return &Router{static: map[string]map[string]httprouter.Handle{}}
}

// Handle adds a route. A static path beside a parameter at the same level
// (…/extra-fields beside …/:key) conflicts in httprouter, so static paths
// are kept in a map, looked up first. httprouter (v1.3) also refuses a
// static segment where another path of it has a parameter
// (/v1/products/by-barcode/:key beside /v1/products/:key), so such a path
// goes to a router of its own; lookup asks the later routers, which hold
// the more specific paths, first.
func (rt *Router) Handle(method, path string, h httprouter.Handle) {
	if !slices.Contains(rt.methods, method) {
		rt.methods = append(rt.methods, method)
	}
	if !strings.Contains(path, ":") {
		if rt.static[path] == nil {
			rt.static[path] = map[string]httprouter.Handle{}
		}
		rt.static[path][method] = h
		return
	}
	for _, router := range rt.routers {
		if tryHandle(router, method, path, h) {
			return
		}
	}
	router := httprouter.New()
	router.Handle(method, path, h)
	rt.routers = append(rt.routers, router)
}

// tryHandle adds the path to router, reporting false when it conflicts
// with one there (httprouter panics on a conflict, before it changes
// anything).
func tryHandle(router *httprouter.Router, method, path string, h httprouter.Handle) (added bool) {
	defer func() {
		if recover() != nil {
			added = false
		}
	}()
	router.Handle(method, path, h)
	return true
}

// Lookup finds the handler of a method and escaped path, with the path's
// parameters. When there is none, allowed lists the methods the path
// takes, unsorted (none: no route takes the path).
func (rt *Router) Lookup(method, path string) (h httprouter.Handle, ps httprouter.Params, allowed []string) {
	if byMethod, ok := rt.static[path]; ok {
		if h, ok := byMethod[method]; ok {
			return h, nil, nil
		}
		return nil, nil, slices.Collect(maps.Keys(byMethod))
	}
	if h, ps := rt.lookup(method, path); h != nil {
		return h, ps, nil
	}
	for _, m := range rt.methods {
		if h, _ := rt.lookup(m, path); h != nil {
			allowed = append(allowed, m)
		}
	}
	return nil, nil, allowed
}

// EmptyParam reports whether a route of method takes a parameter where
// path's last segment is empty (/v1/customers/ of /v1/customers/:key).
func (rt *Router) EmptyParam(method, path string) bool {
	if !strings.HasSuffix(path, "/") {
		return false
	}
	h, _ := rt.lookup(method, path+"-")
	return h != nil
}

// lookup finds the handler of a method and path with parameters.
func (rt *Router) lookup(method, path string) (httprouter.Handle, httprouter.Params) {
	for i := len(rt.routers) - 1; i >= 0; i-- {
		if h, ps, _ := rt.routers[i].Lookup(method, path); h != nil {
			return h, ps
		}
	}
	return nil, nil
}
