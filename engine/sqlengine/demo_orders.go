package sqlengine

import "context"

// The demo orders, quotes, contract lines and bookings. To be written with
// the orders issue.
func (l demoLocale) createOrders(ctx context.Context, w *writer) error        { return nil }
func (l demoLocale) createQuotes(ctx context.Context, w *writer) error        { return nil }
func (l demoLocale) createContractLines(ctx context.Context, w *writer) error { return nil }
func (l demoLocale) createBookings(ctx context.Context, w *writer) error      { return nil }
