package io.gpux.engine.command;

/** How long an order may rest: GTC until cancelled, IOC fills what it can now, FOK all now or nothing. */
public enum TimeInForce
{
    GTC, IOC, FOK;

    private static final TimeInForce[] VALUES = values();

    public static TimeInForce of(final int ordinal)
    {
        return VALUES[ordinal];
    }
}
