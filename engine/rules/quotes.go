package rules

import (
	"context"
	"fmt"
	"strconv"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/names"
)

// quoteValidity: a quote created without ValidUntilDate is valid for the
// company's setting quotes.validityDays (default 30) from its QuoteDate
// (spec 2.3, 4.4, 8). The catalog gives Status, QuoteDate (today in the
// company's time zone) and the created defaults; quote lines are stored as
// sent, not priced.
type quoteValidity struct{}

// QuoteValiditySetting names the company's quote validity, whole days.
const QuoteValiditySetting = "quotes.validityDays"

const defaultQuoteValidityDays = 30

func (quoteValidity) Name() string     { return "the quote validity rules" }
func (quoteValidity) Register() string { return names.Quotes }
func (quoteValidity) Needs() []Need {
	return []Need{
		Field(names.Quotes, names.QuoteQuoteDate, catalog.Date),
		Field(names.Quotes, names.QuoteValidUntilDate, catalog.Date),
	}
}

func (quoteValidity) PrepareCreate(ctx context.Context, tx Tx, values Values) error {
	if !engine.Empty(values[names.QuoteValidUntilDate]) {
		return nil
	}
	days, err := quoteValidityDays(ctx, tx)
	if err != nil {
		return err
	}
	// QuoteDate is set (given, or the catalog's $today) and passed the
	// date check: its first ten characters are its date.
	quoteDate := text(values, names.QuoteQuoteDate)
	if quoteDate == "" {
		return nil // cleared on purpose by quoteDate: ""
	}
	values[names.QuoteValidUntilDate], err = addDays(quoteDate, days)
	return err
}

// quoteValidityDays is how long a quote is valid when created without a
// validity date.
func quoteValidityDays(ctx context.Context, tx Tx) (int, error) {
	value, ok, err := tx.Setting(ctx, QuoteValiditySetting)
	if err != nil || !ok {
		return defaultQuoteValidityDays, err
	}
	days, err := strconv.Atoi(value)
	if err != nil || days < 0 {
		return 0, fmt.Errorf("company %s: setting %s: %q is not a whole number of days", tx.Session().Company, QuoteValiditySetting, value)
	}
	return days, nil
}
