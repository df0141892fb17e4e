package io.gpux.gateway;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * The gateway's Jazzer fuzz tests, on their regression inputs, as one test class for Surefire: they run in
 * the same test JVM, which pays Jazzer's start (its agent, its hooks) once, and the other test JVM never
 * starts Jazzer. Surefire runs them only through this suite (gateway/pom.xml); {@code -Dtest=FrameDecoderFuzzTest}
 * and {@code JAZZER_FUZZ=1} runs select a class directly, as each class's comment shows.
 */
@Suite
@SelectClasses({FrameDecoderFuzzTest.class, SessionFuzzTest.class})
class JazzerFuzzTests
{
}
