package sqlengine

import "context"

// Quote rules (spec 2.3, 4.4). The catalog gives Status (Open), QuoteDate
// (today in the company's time zone) and CreatedBy/CreatedDate defaults.
// A quote's material and time lines are created with it all or nothing
// (catalog lines) and stored as sent: the engine prices no quote line.

func quoteRules() *registerRules {
	return &registerRules{
		prepareCreate: func(ctx context.Context, w *writer, _ *table, values map[string]any) error {
			if !isEmpty(values["ValidUntilDate"]) {
				return nil
			}
			days, err := w.quoteValidityDays(ctx)
			if err != nil {
				return err
			}
			// QuoteDate is set (given, or the catalog's $today) and passed the
			// date check: its first ten characters are its date.
			quoteDate, _ := values["QuoteDate"].(string)
			if quoteDate == "" {
				return nil // cleared on purpose by quoteDate: ""
			}
			values["ValidUntilDate"], err = addDays(quoteDate, days)
			return err
		},
	}
}
