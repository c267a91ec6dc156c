package io.sluice.cli;

import java.util.HashSet;
import java.util.Set;

/**
 * Reads a plain command line of options by hand, for the one command whose start-up time matters ({@code sluice
 * server}, see docs/benchmarks.md "Start-up"): picocli's classes cannot be kept in the JVM's start-up cache (they are
 * Java 5 class files) and its model is built by reflection (annotation proxies, method-handle accessors), together
 * well over 100 ms of a cold start, and even reading the annotations ourselves costs tens of milliseconds.
 *
 * <p>It understands {@code --name value}, {@code --name=value} and flags. The command says what each name is
 * ({@link Target}); anything else (help, version, a subcommand, a positional argument, an unknown or repeated
 * option, a missing value, a value that does not convert) makes {@link #parse} answer false, and the caller hands
 * the line to picocli, whose model then says what is wrong the usual way. The annotations stay the description of
 * the options (help, defaults, errors); {@code QuickOptionsTest} checks that this parse sets every field as picocli
 * does.
 */
final class QuickOptions {

    /** What a command does with each option name. */
    interface Target {
        /**
         * @param name an option's name, e.g. {@code --host}
         * @return whether it is an option without a value, or null if the name is not known here
         */
        Boolean isFlag(String name);

        /** Sets the flag {@code name}. */
        void flag(String name);

        /**
         * Sets option {@code name} to {@code value}.
         *
         * @throws RuntimeException if the value does not convert (picocli then reports it)
         */
        void value(String name, String value);

        /** @return the name the option is counted under (a short and a long name are one option) */
        default String canonical(String name) {
            return name;
        }
    }

    private QuickOptions() {
    }

    /**
     * @param args the command's arguments (without the command's name)
     * @param target sets the command's fields
     * @return true if the line was understood and every option in it set; false if picocli must parse it (the
     *     command's fields may then be half-set: use a fresh instance)
     */
    static boolean parse(String[] args, Target target) {
        Set<String> given = new HashSet<>();
        try {
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                int eq = arg.indexOf('=');
                boolean inline = arg.startsWith("--") && eq > 0;
                String name = inline ? arg.substring(0, eq) : arg;
                Boolean flag = target.isFlag(name);
                if (flag == null || !given.add(target.canonical(name))) {
                    return false; // unknown, positional, a subcommand, help, or given twice
                }
                if (flag) {
                    if (inline) {
                        return false; // --flag=value
                    }
                    target.flag(name);
                } else if (inline) {
                    target.value(name, arg.substring(eq + 1));
                } else if (i + 1 < args.length && target.isFlag(args[i + 1]) == null) {
                    target.value(name, args[++i]);
                } else {
                    return false; // the value is missing (picocli takes an option name as no value)
                }
            }
            return true;
        } catch (RuntimeException e) {
            return false; // a value that does not convert: picocli reports it properly
        }
    }
}
