/**
 * Accounts: balances, holds, open orders. The rules that change them are in {@code io.gpux.engine}:
 * {@code Funds} (holds, settlement, fees) and {@code Admin} (accounts and deposits); amounts are
 * {@code io.gpux.common.Money}.
 */
package io.gpux.engine.funds;
