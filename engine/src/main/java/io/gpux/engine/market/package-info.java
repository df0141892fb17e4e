/**
 * Markets: settings (tick, fee, grace, prepay, limits), both sides of the book and the preemptible leases. Created and
 * configured by {@code Admin} in {@code io.gpux.engine}.
 */
package io.gpux.engine.market;
