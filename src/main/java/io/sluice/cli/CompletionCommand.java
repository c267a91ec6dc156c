package io.sluice.cli;

import java.util.concurrent.Callable;

import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sluice completion bash}: prints a script that makes the shell complete {@code sluice}'s commands and
 * options. Generated from the whole command model, so it always matches the commands there are.
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
        description = {"Prints a shell completion script for sluice's commands and options.",
            "bash: source <(./sluice completion bash), or save it as /etc/bash_completion.d/sluice. zsh: the same "
                + "after 'autoload -U bashcompinit && bashcompinit'."})
final class CompletionCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "SHELL", description = "the shell: bash (zsh through bashcompinit)")
    private String shell;

    @Override
    public Integer call() {
        if (!shell.equals("bash") && !shell.equals("zsh")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "no completion for shell '" + shell
                    + "': bash and zsh (through bashcompinit) are supported");
        }
        // the whole model: the command line that runs this one is built lazily, for one command only
        CommandLine all = new CommandLine(new Main());
        spec.commandLine().getOut().print(AutoComplete.bash("sluice", all));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
