import ArgumentParser

@main
struct Caretide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caretide",
        abstract:
            "Operate Caretide: run the whole stack locally, mint development tokens, run the embedded broker, migrate databases, rescore, import HPO releases and the content pack, replay dead letters.",
        subcommands: [
            DevCommand.self, TokenCommand.self, BrokerCommand.self, MigrateCommand.self, RescoreCommand.self, HPOCommand.self, FoodsCommand.self,
            DeadLettersCommand.self, ArticlesCommand.self,
        ])
}
