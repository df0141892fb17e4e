/**
 * The matching engine and its rules, one class each: order entry ({@code OrderEntry}), matching
 * ({@code Matcher}), preemption ({@code Preemptor}), leases from start to end ({@code LeaseLifecycle}),
 * holds, settlement and fees ({@code Funds}), heartbeats and reliability ({@code MachineMonitor}), the
 * exchange's own commands ({@code Admin}), API keys ({@code ApiKeys}), outages ({@code Restarts}) and dry
 * runs ({@code Quoter}). They live beside {@code MatchingEngine} because they share its state, which no
 * other package reaches; the data they work on lives in the packages below.
 */
package io.gpux.engine;
