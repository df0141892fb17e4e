package io.gpux.engine;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * A property's tries as its annotation says in the default build, {@value #FACTOR} times as many under
 * {@code -Pstress} ({@code -Dgpux.stress=true}): the long random runs stay out of the everyday build without
 * leaving it. Added to a property class with {@code @AddLifecycleHook(StressTries.class)}.
 */
public final class StressTries implements AroundPropertyHook
{
    static final int FACTOR = 10;

    /** Whether the build runs the long random runs ({@code -Pstress}). */
    static boolean stress()
    {
        return Boolean.getBoolean("gpux.stress");
    }

    @Override
    public PropertyExecutionResult aroundProperty(final PropertyLifecycleContext context, final PropertyExecutor property)
    {
        if (stress())
        {
            context.attributes().tries().ifPresent(tries -> context.attributes().setTries(tries * FACTOR));
        }
        return property.execute();
    }

    /** Added to a class, it applies to the class's properties. */
    @Override
    public PropagationMode propagateTo()
    {
        return PropagationMode.DIRECT_DESCENDANTS;
    }

    /** Outside jqwik's own hooks: the tries must be set before the property starts generating. */
    @Override
    public int aroundPropertyProximity()
    {
        return -100;
    }
}
