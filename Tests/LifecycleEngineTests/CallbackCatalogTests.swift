import Testing

@testable import LifecycleEngine

/// The callback catalogue: which methods are scene callbacks, and the aggregate rule.
@Suite struct CallbackCatalogTests {
  @Test func sceneCallbacksAreExactlyTheUISceneDelegateMethods() {
    let sceneDelegateMethods = CallbackMethod.allCases.filter {
      $0.rawValue.hasPrefix("scene") || $0.rawValue.hasPrefix("windowScene")
        || $0 == .stateRestorationActivity
    }
    #expect(CallbackMethod.allCases.filter(\.isSceneCallback) == sceneDelegateMethods)
  }

  @Test(arguments: [
    (AppState.inactive, AppState.active, "UIApplication.didBecomeActiveNotification"),
    (.active, .inactive, "UIApplication.willResignActiveNotification"),
    (.inactive, .background, "UIApplication.didEnterBackgroundNotification"),
    (.background, .inactive, "UIApplication.willEnterForegroundNotification"),
    (.suspended, .inactive, "UIApplication.willEnterForegroundNotification"),
  ])
  func aggregateNotificationRidesOnTheChangeOfAppState(
    from: AppState, to: AppState, notification: String
  ) {
    #expect(CallbackMethod.aggregateNotification(from: from, to: to)?.rawValue == notification)
  }

  @Test(arguments: [
    (AppState.background, AppState.background), (.notRunning, .background),
    (.active, .active), (.background, .suspended),
  ])
  func noAggregateNotificationWithoutAForegroundChange(from: AppState, to: AppState) {
    #expect(CallbackMethod.aggregateNotification(from: from, to: to) == nil)
  }
}
