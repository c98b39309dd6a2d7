// Migration lives in Strata itself since the coordinator migrates a store on open with Core
// Data's two options alone (no migrator to pass in), as Core Data's own migration manager is part
// of Core Data. This module stays so that code written against it keeps building: importing it
// imports Strata, where every type it had now is.
@_exported import Strata
