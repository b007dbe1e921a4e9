// MARK: - One import for an app

// `import Proactive` is all an app that embeds the engine writes: the `Engine` facade and its
// results (ProactiveEngine), the values it takes and returns (donations, parameter values,
// intent definitions: ProactiveCore; suggestions, declarations, feedback, Smart Stack
// decisions: ProactiveRanking), the store's deletion, open-mode and error types, and Foundation's `Date`.
//
// ```swift
// import Proactive
//
// let engine = try Engine(path: "me.sqlite")
// try engine.donate(Donation(user: "me", app: "com.example.coffee", intent: "OrderCoffeeIntent",
//                            parameters: ["item": .string("latte")], date: Date(), utcOffset: 0))
// ```

@_exported import Foundation
@_exported import ProactiveCore
@_exported import ProactiveEngine
@_exported import ProactiveRanking
@_exported import struct ProactiveStore.DateSpan
@_exported import struct ProactiveStore.DonationFilter
@_exported import enum ProactiveStore.DuplicatePolicy
@_exported import enum ProactiveStore.DonationDeletion
@_exported import struct ProactiveStore.ProactiveDatabase
@_exported import enum ProactiveStore.StoreAccess
@_exported import struct ProactiveStore.StoreError
@_exported import enum ProactiveStore.StoreOpenMode
