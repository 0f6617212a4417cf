package codegen

// How the document spells null.

// orNull is s admitting null too: its type gains "null", and an enum
// lists null among its values.
func orNull(s *Schema) *Schema {
	s.Type = append(s.Type, "null")
	if s.Enum != nil {
		s.Enum = append(s.Enum, nil)
	}
	return s
}
