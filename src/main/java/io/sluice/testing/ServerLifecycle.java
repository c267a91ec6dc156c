package io.sluice.testing;

/** When {@link SluiceExtension} starts and stops its embedded server. */
public enum ServerLifecycle {
    /** One server for the test class (and its nested classes), started before its first test, stopped after its last. */
    PER_CLASS,
    /** A server of its own for each test, stopped when the test ends: nothing one test writes reaches another. */
    PER_TEST
}
