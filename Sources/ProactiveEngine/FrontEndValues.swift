// MARK: - The values the front ends pass and print

// The command line and the service reach the domain only through `Engine`, `RankingSession` and
// the Runtime (Package.swift gives them no other internal module; scripts/layering-check.py keeps it
// so). What they read from arguments and bodies and what they print or encode are the values below:
// each named, one by one, so that a front end sees these and nothing else of the lower modules.

// The store: filters, errors, access, retention, import and the credentials' files.
@_exported import struct ProactiveStore.ActivityWatchOptions
@_exported import enum ProactiveStore.ActivityWatchExportReader
@_exported import enum ProactiveStore.AndroidLaunchDeduplication
@_exported import struct ProactiveStore.AndroidUsageOptions
@_exported import enum ProactiveStore.AndroidUsageReader
@_exported import struct ProactiveStore.AppCredentialRecord
@_exported import struct ProactiveStore.BrowserHistoryOptions
@_exported import enum ProactiveStore.BrowserHistoryReader
@_exported import enum ProactiveStore.BrowserKind
@_exported import struct ProactiveStore.CredentialFiles
@_exported import protocol ProactiveStore.CredentialRecordStore
@_exported import struct ProactiveStore.CredentialsVersion
@_exported import struct ProactiveStore.DateSpan
@_exported import struct ProactiveStore.DeviceLogImport
@_exported import struct ProactiveStore.DeviceLogSummary
@_exported import struct ProactiveStore.DonationFilter
@_exported import enum ProactiveStore.DonationDeletion
@_exported import struct ProactiveStore.DonationImporter
@_exported import enum ProactiveStore.DonationLogFile
@_exported import class ProactiveStore.DonationLogWriter
@_exported import struct ProactiveStore.DonationStatistics
@_exported import enum ProactiveStore.DuplicatePolicy
@_exported import struct ProactiveStore.ImportOptions
@_exported import struct ProactiveStore.ImportProgress
@_exported import struct ProactiveStore.ImportRetention
@_exported import struct ProactiveStore.ImportSummary
@_exported import struct ProactiveStore.KnowledgeCOptions
@_exported import enum ProactiveStore.KnowledgeCReader
@_exported import struct ProactiveStore.RetentionPolicy
@_exported import struct ProactiveStore.RetentionReport
@_exported import enum ProactiveStore.RetentionWindow
@_exported import struct ProactiveStore.SQLiteBackend
@_exported import func ProactiveStore.writeAll  // write(2) until all is written (standard output and error)
@_exported import enum ProactiveStore.ServiceCredential
@_exported import struct ProactiveStore.ShellHistoryOptions
@_exported import enum ProactiveStore.ShellHistoryReader
@_exported import enum ProactiveStore.ShellKind
@_exported import enum ProactiveStore.StoreAccess
@_exported import protocol ProactiveStore.StoreBackend
@_exported import struct ProactiveStore.StoreError
@_exported import enum ProactiveStore.StoreFreshness
@_exported import typealias ProactiveStore.StoreOpenMode

// Models: their names and formats (what `models`, `train`, `evaluate` and `worlds` list and print).
@_exported import enum ProactiveModels.ModelArchive
@_exported import struct ProactiveModels.ModelEntry
@_exported import struct ProactiveModels.ModelRegistry
@_exported import struct ProactiveModels.WeightGuard

// Ranking: declarations, feedback, Focus and the Smart Stack's values, and their text formats.
@_exported import struct ProactiveRanking.AppContext
@_exported import struct ProactiveRanking.DeclarationError
@_exported import struct ProactiveRanking.Declarations
@_exported import enum ProactiveRanking.FeedbackCodec
@_exported import struct ProactiveRanking.FeedbackError
@_exported import struct ProactiveRanking.FeedbackEvent
@_exported import enum ProactiveRanking.FeedbackKind
@_exported import struct ProactiveRanking.FilterCriteria
@_exported import struct ProactiveRanking.FilterPredicate
@_exported import struct ProactiveRanking.FocusError
@_exported import struct ProactiveRanking.FocusFilter
@_exported import struct ProactiveRanking.FocusFilterPerform
@_exported import enum ProactiveRanking.FocusName
@_exported import struct ProactiveRanking.FocusPeopleAnalysis
@_exported import struct ProactiveRanking.FocusSchedule
@_exported import struct ProactiveRanking.FocusState
@_exported import struct ProactiveRanking.FocusTimeline
@_exported import struct ProactiveRanking.FusionConfiguration
@_exported import struct ProactiveRanking.PersonFocusAssociation
@_exported import enum ProactiveRanking.RelevanceProvider
@_exported import struct ProactiveRanking.RelevanceSignals
@_exported import enum ProactiveRanking.RelevantShortcutCodec
@_exported import struct ProactiveRanking.RelevantShortcutSet
@_exported import struct ProactiveRanking.SmartStack
@_exported import struct ProactiveRanking.StackSettings
@_exported import struct ProactiveRanking.StackSimulation
@_exported import struct ProactiveRanking.StackSpan
@_exported import struct ProactiveRanking.WidgetID
@_exported import struct ProactiveRanking.WidgetTimeline
@_exported import enum ProactiveRanking.WidgetTimelineCodec

// The numerics' one setting a command makes: BLAS on one thread where it parallelises over users itself.
@_exported import enum LinearAlgebra.BLAS
