import Proactive

/// Two apps' intent definitions, two weeks of mornings, trained once; then one more
/// donation is learned without retraining, and the engine answers for 07:38 on the next day.
/// Run again on the same store, it gives the same answers: `duplicates: .skip` ignores a
/// donation already stored (without it, `donate` throws a `StoreError` you can catch).
func morningRoutine(store path: String) throws -> (top: String, suggestions: [String], stackTop: String) {
    let engine = try Engine(path: path)
    // What the apps ship: their intents, how a suggestion reads, the widget each one configures.
    try engine.storeDefinitions([
        IntentDefinition(app: "com.example.weather", name: "CheckWeatherIntent",
                         parameters: [ParameterDefinition(name: "location", type: .entity(type: "City"))],
                         combinations: [ParameterCombination(parameters: ["location"], summary: "Weather in ${location}")],
                         widgetKind: "forecast"),
        IntentDefinition(app: "com.example.coffee", name: "OrderCoffeeIntent",
                         parameters: [ParameterDefinition(name: "item", type: .string)],
                         combinations: [ParameterCombination(parameters: ["item"], summary: "Order a ${item}")],
                         widgetKind: "order"),
    ])
    let day0 = Date(timeIntervalSince1970: 1_795_564_800)  // 2026-11-25T00:00:00Z, a Wednesday
    func at(_ day: Int, _ hour: Int, _ minute: Int) -> Date {
        day0.addingTimeInterval(Double(day * 86_400 + hour * 3_600 + minute * 60))
    }
    for day in 0 ..< 14 {
        try engine.donate(Donation(user: "me", app: "com.example.weather", intent: "CheckWeatherIntent",
                                   parameters: ["location": .entity(id: "cupertino", display: "Cupertino")],
                                   date: at(day, 7, 5), utcOffset: 0),  // utcOffset: seconds east of UTC
                           duplicates: .skip)
        try engine.donate(Donation(user: "me", app: "com.example.coffee", intent: "OrderCoffeeIntent",
                                   parameters: ["item": .string("latte")], date: at(day, 7, 40), utcOffset: 0),
                           duplicates: .skip)
    }
    try engine.train(user: "me")  // once: from now on every donation is learned as it arrives

    try engine.donate(Donation(user: "me", app: "com.example.weather", intent: "CheckWeatherIntent",
                               parameters: ["location": .entity(id: "cupertino", display: "Cupertino")],
                               date: at(14, 7, 6), utcOffset: 0), duplicates: .skip)
    let prediction = try engine.predict(user: "me", at: at(14, 7, 38), utcOffset: 0, k: 2)
    let suggestions = try engine.suggest(user: "me", at: at(14, 7, 38), utcOffset: 0, k: 2)
    // The widgets by name: "weather" and "coffee" are the apps' last components.
    let stack = try engine.stackDecision(user: "me", widgets: ["weather", "coffee"],
                                         at: at(14, 7, 38), utcOffset: 0)
    return (prediction.suggestions[0].summary, suggestions.suggestions.map(\.summary), stack.top.displayName)
}
