/**
 * The fragments several REST documents spread (a record's REST selection, once): `npm run codegen`
 * appends to each document of the REST manifest (schema/operations/rest.manifest.json) the ones it
 * spreads, so every document there stands alone. A standard mutation's derived document selects its record by the
 * `Rest<Type>` fragment of its type when there is one.
 */
import { gql } from './gql.js';

export const REST_FRAGMENTS = gql`
  fragment RestAlert on Alert {
    id
    createdOn
    isActive
    alertRule {
      id
      name
      ruleSet
      isEnabled
    }
    devices {
      id
      name
    }
    snoozedUntil
    resolvedOn
    reason
    autoResolved
  }

  fragment RestDevice on Device {
    id
    name
    isOnline
    tags
    deviceType {
      id
      name
      manufacturer
    }
    pingData {
      ...RestPingData
    }
    location {
      city
      state
      country
      latitude
      longitude
    }
    groupId
    groupName
    orgId
    timezone
    notes
    registrationKey
    createdOn
    updatedOn
  }

  fragment RestPingData on PingData {
    cpuUsage
    memoryUsage
    diskUsage
    playerVersion
    osVersion
    ipAddress
    externalIpAddress
    macAddress
    uptime
    cpuTemperature
    latitude
    longitude
    currentSchedule
    bytesReceived
    transferRate
    downloadPctComplete
    type
    meta
    timestamp
  }

  fragment RestMedia on Media {
    id
    name
    fileName
    mimeType
    fileSize
    fileUrl
    thumbnailUrl
    uploadedOn
    width
    height
    sha512
    startDate
    endDate
    tags
    groupId
    groupName
  }

  fragment RestPlaylist on Playlist {
    id
    name
    type
    duration
    groupId
    groupName
    tags
    createdOn
    updatedOn
    sources {
      id
      name
      type
      sequence
      interval
      validFrom
      validUntil
      media {
        id
        fileName
        fileUrl
        name
        mimeType
        fileSize
        thumbnailUrl
        uploadedOn
        width
        height
        sha512
        startDate
        endDate
        tags
        groupId
        groupName
      }
    }
  }

  fragment RestTemplate on Template {
    id
    name
    width
    height
    orientation
    groupId
    groupName
    tags
    createdOn
    updatedOn
    modules {
      id
      name
      type
      left
      top
      width
      height
      playlistId
    }
  }

  fragment RestDataTable on DataTable {
    id
    name
    description
    columnCount
    rowCount
    updatedAt
    cacheTtlSeconds
    columns {
      id
      name
      key
      type
      required
      sortable
      options
      default
    }
  }

  fragment RestDataTableRow on DataTableRow {
    id
    sortOrder
    data
    updatedAt
    version
  }

  fragment RestDataTableRowVersion on DataTableRowVersion {
    rowId
    version
    change
    data
    sortOrder
    updatedAt
    userId
  }

  fragment RestSchedule on Schedule {
    id
    name
    type
    startDate
    endDate
    startTime
    endTime
    monday
    tuesday
    wednesday
    thursday
    friday
    saturday
    sunday
    priority
    templateId
    playlistId
    devices {
      id
    }
    groupId
    groupName
    tags
    createdOn
    updatedOn
  }

  fragment RestAuditEvent on AuditEvent {
    eventId
    timestamp
    eventType
    userId
    userName
    httpMethod
    controllerName
    actionName
    ipAddress
    responseCode
    interface
  }

  fragment RestOutcome on MutationPayload {
    success
    error
    errorCode
    errorField
  }

  fragment RestBatchRows on BatchDataTableRowsPayload {
    ...RestOutcome
    results {
      index
      rowId
      success
      error
      errorCode
    }
    successCount
    failureCount
  }

  fragment RestUser on User {
    id
    firstName
    lastName
    email
    username
    roles
    orgId
    lastActivity
    createdOn
    disabled
  }

  # A webhook endpoint as every /webhooks answer shows it (never its secret).
  fragment RestWebhookEndpoint on WebhookEndpoint {
    id
    url
    description
    eventTypes
    deviceIds
    deviceGroupId
    tag
    enabled
    disabledReason
    consecutiveFailures
    previousSecretExpiresAt
    createdOn
    updatedOn
  }

  # A delivery of one event to one endpoint, with every attempt (the delivery log).
  fragment RestWebhookDelivery on WebhookDelivery {
    id
    endpointId
    eventId
    eventType
    eventTimestamp
    status
    attemptCount
    nextAttemptAt
    attempts {
      at
      statusCode
      latencyMs
      responseExcerpt
    }
    createdOn
  }

  fragment RestOverride on Override {
    id
    name
    state
    content {
      type
      media {
        id
      }
      playlist {
        id
      }
      text
      textColor
      backgroundColor
    }
    target {
      ...RestOverrideTarget
    }
    startsAt
    endsAt
    cancelledAt
    startedBy
    createdOn
    screens {
      device {
        id
      }
      state
      shownAt
      stoppedAt
    }
    screenCounts {
      pending
      showing
      ended
      unreachable
    }
  }

  # Which screens an override (or a CAP feed's overrides) reaches.
  fragment RestOverrideTarget on OverrideTarget {
    all
    tags
    groupIds
    deviceIds
    radius {
      latitude
      longitude
      radiusKm
    }
  }

  fragment RestCapFeed on CapFeed {
    id
    name
    url
    enabled
    severities
    events
    target {
      ...RestOverrideTarget
    }
    pollSeconds
    defaultDurationMinutes
    configuredBy
    lastPolledAt
    lastError
    createdOn
    alerts {
      ...RestCapAlert
    }
  }

  fragment RestCapAlert on CapAlert {
    identifier
    sender
    sent
    msgType
    event
    severity
    headline
    outcome
    detail
    override {
      id
    }
    receivedAt
  }

  fragment RestPowerSchedule on PowerSchedule {
    id
    name
    scope
    target
    windows {
      weekdays
      on
      off
    }
    exceptions {
      date
      windows {
        on
        off
      }
    }
    createdOn
    updatedOn
  }
`;
