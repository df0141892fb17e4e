/**
 * The books' data: orders, price levels, each side's sorted levels, the order pool and index. The rules
 * that change them are in {@code io.gpux.engine}: {@code OrderEntry} (admission, cancel, replace) and
 * {@code Matcher} (price-time priority).
 */
package io.gpux.engine.book;
