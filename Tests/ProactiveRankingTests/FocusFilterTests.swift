import Foundation
import Testing
import ProactiveCore
@testable import ProactiveRanking

/// The talk's filter: dark mode (required, default false), status (optional), account (optional entity).
let mailFilterJSON = """
{"app": "com.example.mail", "title": "Set account and appearance",
 "description": "Choose the account and look of Mail in this Focus",
 "parameters": [
   {"name": "alwaysUseDarkMode", "title": "Always use dark mode", "type": "bool", "optional": false, "default": false},
   {"name": "status", "title": "Status", "type": "string"},
   {"name": "account", "title": "Account", "type": "entity", "entityType": "Account",
    "options": [{"id": "personal", "display": "Personal"}, {"id": "work", "display": "Work"}],
    "matches": "account"}]}
"""

let personalAccount = ParameterValue.entity(id: "personal", display: "Personal")

@Suite("Focus filters: declaration, configuration, perform")
struct FocusFilterTests {
    static func engine() throws -> FocusFilterEngine {
        var engine = FocusFilterEngine()
        engine.declare(try FocusFilter.parse(mailFilterJSON))
        return engine
    }

    // MARK: Declaration

    @Test func declarationParsesEveryParameterKind() throws {
        let filter = try FocusFilter.parse(mailFilterJSON)
        #expect(filter.app == "com.example.mail")
        #expect(filter.title == "Set account and appearance")
        #expect(filter.parameters.map(\.name) == ["alwaysUseDarkMode", "status", "account"])
        #expect(filter.defaults == ["alwaysUseDarkMode": .bool(false)])
        #expect(filter.parameter(named: "account")?.matches == "account")
        #expect(try FocusFilter.parse(JSONWriter.string(filter.json)) == filter)
    }

    @Test(arguments: [
        (#"{"app":"a","title":"T","parameters":[{"name":"x","type":"bool","optional":false}]}"#, "parameters[0].default"),
        (#"{"app":"a","title":"T","parameters":[{"name":"x","type":"string","default":"y"}]}"#, "parameters[0].default"),
        (#"{"app":"a","title":"T","parameters":[{"name":"x","type":"bool","optional":false,"default":"no"}]}"#, "parameters[0].default"),
        (#"{"app":"a","title":"T","parameters":[{"name":"x","type":"date"}]}"#, "parameters[0].type"),
        (#"{"app":"a","title":"T","parameters":[{"name":"x","type":"bool"},{"name":"x","type":"string"}]}"#, "parameters[1].name"),
        (#"{"app":"a","parameters":[]}"#, "title"),
    ])
    func badDeclarationsNameTheField(json: String, field: String) {
        #expect(throws: FocusError.self) { try FocusFilter.parse(json) }
        do { _ = try FocusFilter.parse(json) } catch { #expect(error.field == field) }
    }

    @Test func anAppDeclaresOnlyItsOwnFilter() throws {
        let error = #expect(throws: FocusError.self) { try FocusFilter.parse(mailFilterJSON, app: "com.example.chat") }
        #expect(error?.field == "app")
        #expect(try FocusFilter.parse(#"{"title":"T","parameters":[]}"#, app: "com.example.chat").app == "com.example.chat")
    }

    // MARK: Display representation

    @Test func displayRepresentationListsRequiredAndSetOptionalParameters() throws {
        let engine = try Self.engine()
        let filter = try #require(engine.filter(app: "com.example.mail"))
        let unset = filter.displayRepresentation(configured: [:])
        #expect(unset.primary == "Always use dark mode")
        #expect(unset.secondary == "Off")

        let accountOnly = filter.displayRepresentation(configured: ["account": personalAccount])
        #expect(accountOnly.primary == "Always use dark mode, Account")      // status is optional and unset: omitted
        #expect(accountOnly.secondary == "Off, Personal")

        let all = filter.displayRepresentation(configured: ["alwaysUseDarkMode": .bool(true), "status": .string("Focusing"),
                                                            "account": .entity(id: "personal", display: nil)])
        #expect(all.primary == "Always use dark mode, Status, Account")
        #expect(all.secondary == "On, Focusing, Personal")                  // entity display from the declared options
    }

    // MARK: Configuration

    @Test func configurationIsValidatedAndMerged() throws {
        var engine = try Self.engine()
        let account = try #require(engine.filter(app: "com.example.mail")?.parameter(named: "account"))
        try engine.configure(app: "com.example.mail", focus: "Personal", set: ["account": try account.value(fromText: "personal")])
        try engine.configure(app: "com.example.mail", focus: "personal", set: ["status": .string("Off duty")])
        #expect(engine.configuredValues(app: "com.example.mail", focus: "PERSONAL") == ["account": personalAccount, "status": .string("Off duty")])
        try engine.configure(app: "com.example.mail", focus: "personal", unset: ["status"])
        #expect(engine.configuredValues(app: "com.example.mail", focus: "personal") == ["account": personalAccount])

        #expect(throws: FocusError(field: "account", reason: "unknown Account \"school\" (choose one of: personal, work)")) {
            try account.value(fromText: "school")
        }
        let wrongType = #expect(throws: FocusError.self) {
            try engine.configure(app: "com.example.mail", focus: "work", set: ["alwaysUseDarkMode": .string("yes")])
        }
        #expect(wrongType?.field == "alwaysUseDarkMode")
        let unknown = #expect(throws: FocusError.self) { try engine.configure(app: "com.example.mail", focus: "work", set: ["theme": .string("x")]) }
        #expect(unknown?.field == "theme")
    }

    @Test func anAppCannotConfigureAFilterItDidNotDeclare() throws {
        var engine = try Self.engine()
        engine.declare(FocusFilter(app: "com.example.chat", title: "Chat", parameters: [FocusFilterParameter(name: "account", type: .string)]))
        try engine.configure(app: "com.example.chat", focus: "work", set: ["account": .string("work")])
        // Same parameter name, other app: untouched.
        #expect(engine.configuredValues(app: "com.example.mail", focus: "work").isEmpty)
        let error = #expect(throws: FocusError.self) {
            try engine.configure(app: "com.example.notes", focus: "work", set: ["account": .string("work")])
        }
        #expect(error?.description == "app: com.example.notes has not declared a Focus filter")
        engine.removeFilter(app: "com.example.chat")
        #expect(engine.configuredValues(app: "com.example.chat", focus: "work").isEmpty)
    }

    // MARK: Perform on Focus changes

    @Test func focusChangesDeliverConfiguredValuesThenDefaults() throws {
        var engine = try Self.engine()
        try engine.configure(app: "com.example.mail", focus: "personal", set: ["account": personalAccount])
        try engine.configure(app: "com.example.mail", focus: "work", set: ["account": .entity(id: "work", display: "Work"),
                                                                          "alwaysUseDarkMode": .bool(true)])

        let intoPersonal = engine.performEvents(from: nil, to: "Personal")
        #expect(intoPersonal == [FocusFilterPerform(app: "com.example.mail", focus: "personal",
                                                    values: ["alwaysUseDarkMode": .bool(false), "account": personalAccount], reason: .configured)])
        let intoWork = engine.performEvents(from: "personal", to: "work")
        #expect(intoWork.map(\.values) == [["alwaysUseDarkMode": .bool(true), "account": .entity(id: "work", display: "Work")]])

        let intoSleep = engine.performEvents(from: "work", to: "sleep")          // Sleep has nothing configured
        #expect(intoSleep == [FocusFilterPerform(app: "com.example.mail", focus: "sleep",
                                                 values: ["alwaysUseDarkMode": .bool(false)], reason: .defaultsRestored)])
        #expect(engine.performEvents(from: "sleep", to: nil).isEmpty)             // defaults already apply
        #expect(engine.performEvents(from: "personal", to: "personal").isEmpty)  // nothing changed

        #expect(engine.currentValues(app: "com.example.mail", activeFocus: "work")?["alwaysUseDarkMode"] == .bool(true))
        #expect(engine.currentValues(app: "com.example.mail", activeFocus: nil) == ["alwaysUseDarkMode": .bool(false)])
        #expect(engine.currentValues(app: "com.example.chat", activeFocus: "work") == nil)
    }

    @Test func redeclaringDropsValuesThatNoLongerFit() throws {
        var engine = try Self.engine()
        try engine.configure(app: "com.example.mail", focus: "work", set: ["status": .string("Busy"), "account": personalAccount])
        engine.declare(FocusFilter(app: "com.example.mail", title: "Mail", parameters: [FocusFilterParameter(name: "status", type: .number)]))
        #expect(engine.configuredValues(app: "com.example.mail", focus: "work").isEmpty)
    }
}
