package io.gpux.engine.replay;

/** Bad scenario input: names the line and the problem. */
public final class ScenarioException extends Exception
{
    private final int line;

    public ScenarioException(final int line, final String problem)
    {
        super("line " + line + ": " + problem);
        this.line = line;
    }

    public int line()
    {
        return line;
    }
}
