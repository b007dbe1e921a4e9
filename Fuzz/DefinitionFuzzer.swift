import Foundation

// MARK: - libFuzzer target: intent definition files
//
// Built by dev/fuzz.sh with Sources/ProactiveCore/*.swift in one module.
//
// Invariants checked on every input:
// 1. Parsing returns or throws a `DefinitionError` with a reason; never crashes.
// 2. The byte path (`IntentDefinitionSet.parse(UnsafeRawBufferPointer)`) and
//    the text path (`IntentDefinitionSet.parse(String)`) agree on valid UTF-8.
// 3. What parsing accepts satisfies the validation it promises: names are
//    non-empty, parameter names unique per intent, every combination lists
//    known parameters once, summary placeholders belong to the combination,
//    enum parameters have distinct cases, a widget kind is set when one is
//    configured, and no intent migrates itself.
// 4. Building an `IntentDefinitionSet` either throws or finds every
//    definition again by app and name.

@_cdecl("LLVMFuzzerTestOneInput")
public func definitionFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    checkJSONRoundTrip(bytes)
    let byteResult: Result<[IntentDefinition], DefinitionError>
    do { byteResult = .success(try IntentDefinitionSet.parse(bytes)) } catch { byteResult = .failure(error) }
    if let text = String(validating: bytes, as: UTF8.self) {
        let textResult: Result<[IntentDefinition], DefinitionError>
        do { textResult = .success(try IntentDefinitionSet.parse(text)) } catch { textResult = .failure(error) }
        if textResult != byteResult { fuzzFailure("byte and text parsing disagree: \(byteResult) vs \(textResult)", bytes) }
    }
    guard case let .success(definitions) = byteResult else {
        if case let .failure(error) = byteResult, error.reason.isEmpty { fuzzFailure("empty error reason", bytes) }
        return 0
    }
    for definition in definitions { checkValidated(definition, bytes) }
    if let set = try? IntentDefinitionSet(definitions) {
        for definition in definitions where set.definition(app: definition.app, intent: definition.name) == nil {
            fuzzFailure("\(definition.app) \(definition.name) not found after adding it", bytes)
        }
    }
    return 0
}

// MARK: - Validation contract

func checkValidated(_ definition: IntentDefinition, _ bytes: UnsafeRawBufferPointer) {
    if definition.app.isEmpty || definition.name.isEmpty { fuzzFailure("empty app or intent name", bytes) }
    let names = definition.parameters.map(\.name)
    if Set(names).count != names.count { fuzzFailure("duplicate parameter names in \(definition.name)", bytes) }
    for parameter in definition.parameters {
        if case let .enumeration(cases) = parameter.type, cases.isEmpty || Set(cases).count != cases.count {
            fuzzFailure("enum \(parameter.name) has no or duplicate cases", bytes)
        }
    }
    var seen: [Set<String>] = []
    for combination in definition.combinations {
        let members = Set(combination.parameters)
        if members.count != combination.parameters.count || !members.isSubset(of: names) {
            fuzzFailure("combination \(combination.parameters) is not a set of known parameters", bytes)
        }
        if seen.contains(members) { fuzzFailure("combination \(combination.parameters) declared twice", bytes) }
        seen.append(members)
        if !Set(SummaryTemplate.placeholders(combination.summary)).isSubset(of: members) {
            fuzzFailure("summary \(combination.summary) uses a parameter outside its combination", bytes)
        }
    }
    if definition.migratesFrom == definition.name { fuzzFailure("\(definition.name) migrates itself", bytes) }
}
